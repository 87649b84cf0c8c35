#include "muster/report/text.h"

#include <algorithm>
#include <ostream>

namespace muster::report {

void PrintColumns(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  if (rows.empty()) return;
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace muster::report
