#include "muster/framework/status.h"

#include <array>
#include <memory>
#include <mutex>

namespace muster::framework {

std::string_view CodeName(Code code) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending"};
  return kNames[static_cast<size_t>(code)];
}

const std::vector<std::string>& Status::reasons() const {
  static const std::vector<std::string> kNone;
  return details_ ? details_->reasons : kNone;
}

const std::string& Status::plugin() const {
  static const std::string kNone;
  return details_ ? details_->plugin : kNone;
}

Status Status::Pinned(Code code, std::vector<std::string> reasons, std::string_view plugin) {
  // Held here so that leak checkers see them reachable to the end.
  static std::mutex mu;
  static auto* all = new std::vector<std::unique_ptr<Details>>();
  auto details = std::make_unique<Details>();
  details->pinned = true;
  details->reasons = std::move(reasons);
  details->plugin = plugin;
  Status s(code);
  s.details_ = details.get();
  std::lock_guard lock(mu);
  all->push_back(std::move(details));
  return s;
}

Status::Details& Status::MutableDetails() {
  if (details_ == nullptr) {
    details_ = new Details();
  } else if (details_->pinned || details_->refs.load(std::memory_order_acquire) != 1) {
    auto* own = new Details();
    own->reasons = details_->reasons;
    own->plugin = details_->plugin;
    Release();
    details_ = own;
  }
  return *details_;
}

std::string Status::Message() const {
  std::string out;
  for (const std::string& r : reasons()) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

std::string ToString(const Status& s) {
  std::string out(CodeName(s.code()));
  if (!s.reasons().empty()) out += ": " + s.Message();
  if (!s.plugin().empty()) out += " (" + s.plugin() + ")";
  return out;
}

}  // namespace muster::framework
