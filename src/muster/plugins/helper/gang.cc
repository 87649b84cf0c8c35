#include "muster/plugins/helper/gang.h"

#include <cstdint>

#include <fmt/format.h>

#include "muster/api/gang.h"

namespace muster::plugins::helper {

framework::Status CheckSchedulableMembers(const framework::Gang& gang,
                                          std::string_view quorum_name) {
  const auto members = static_cast<int32_t>(gang.members.size());
  const int32_t gated = members - api::SchedulableMembers(gang.members);
  if (members - gated < gang.min_count) {
    return framework::Status::Unresolvable(
        fmt::format("{}/{} members have scheduling gates; {} can be scheduled ({} {})", gated,
                    members, members - gated, quorum_name, gang.min_count));
  }
  return framework::Status::OK();
}

}  // namespace muster::plugins::helper
