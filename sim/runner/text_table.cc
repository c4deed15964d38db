#include "sim/runner/text_table.h"

#include <algorithm>

#include "sim/runner/markdown.h"

namespace kvroute::sim {
namespace {

// Characters on screen: UTF-8 continuation bytes take no column.
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

void PrintTable(std::ostream& out, bool markdown,
                const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], Columns(row[i]));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = markdown ? "|" : " ";
    for (size_t i = 0; i < rows[r].size(); ++i) {
      line.push_back(' ');
      if (markdown) {
        line.append(MarkdownCell(rows[r][i])).append(" |");
      } else {
        line.append(rows[r][i]).append(width[i] - Columns(rows[r][i]) + 1, ' ');
      }
    }
    while (!markdown && !line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (markdown && r == 0) {
      std::string rule = "|";
      for (size_t i = 0; i < rows[0].size(); ++i) rule += "---|";
      out << rule << "\n";
    }
  }
  out << "\n";
}

}  // namespace kvroute::sim
