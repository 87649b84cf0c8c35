#include "muster/api/testing/decode.h"

namespace muster::testing {

api::LoadResult Decode(std::string_view text, const std::string& name) {
  api::LoadResult result;
  api::DecodeText(text, name, result);
  api::FinishLoad(result);
  return result;
}

}  // namespace muster::testing
