#pragma once

// Manifests decoded from a test's text, as LoadManifests decodes one file.

#include <string>
#include <string_view>

#include "muster/api/manifests.h"

namespace muster::testing {

// Decodes `text` as if it were the file `name`, which every error and warning names, then runs
// the checks across objects (FinishLoad): duplicates, generated names, priority admission.
api::LoadResult Decode(std::string_view text, const std::string& name = "test.yaml");

}  // namespace muster::testing
