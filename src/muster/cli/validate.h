#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "muster/api/manifests.h"

namespace muster::cli {

// Exit statuses of every muster command (DESIGN.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeError = 1;
inline constexpr int kExitBadInput = 2;

// `muster validate -f PATH... [--config FILE]`: decodes everything and checks the scheduler
// configuration (--config, or the one among the inputs) as `simulate` and `run` do; prints one
// line per object with its key facts to `out` and returns kExitOk, or prints every error to
// `err` and returns kExitBadInput.
int RunValidate(const std::vector<std::string>& paths, const std::string& config_path,
                api::FieldValidation field_validation, std::istream& in, std::ostream& out,
                std::ostream& err);

}  // namespace muster::cli
