#pragma once

// Plain-text layout shared by the reports.

#include <iosfwd>
#include <string>
#include <vector>

namespace muster::report {

// Pads columns as kubectl's tabwriter does (three spaces between columns); rows[0] is the header.
void PrintColumns(const std::vector<std::vector<std::string>>& rows, std::ostream& out);

}  // namespace muster::report
