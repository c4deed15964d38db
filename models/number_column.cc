#include "models/number_column.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/core/input_file.h"

namespace kvroute::models {
namespace {

struct Where {
  const std::string& path;
  const std::string& column;
  int line;
  [[noreturn]] void Fail(const std::string& message) const {
    throw std::runtime_error(path + ":" + std::to_string(line) +
                             (column.empty() ? "" : ": field '" + column + "'") + ": " + message);
  }
};

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\"");
  const size_t b = s.find_last_not_of(" \t\r\"");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

double ParseCell(const std::string& cell, const Where& where) {
  const std::string text = Trim(cell);
  double value = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      !std::isfinite(value) || value < 0) {
    where.Fail("expected a non-negative number, got '" + text + "'");
  }
  return value;
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

bool Skipped(const std::string& line) {
  const size_t start = line.find_first_not_of(" \t\r");
  return start == std::string::npos || line[start] == '#';
}

bool IsJsonl(const std::string& path) {
  return path.size() >= 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0;
}

}  // namespace

std::vector<double> ReadNumberColumn(const std::string& path, const std::string& column) {
  std::istringstream in(sim::ReadInputFile(path, sim::kTraceInput));
  std::vector<double> out;
  std::string line;
  int number = 0;
  size_t index = 0;
  bool header = !column.empty() && !IsJsonl(path);
  while (std::getline(in, line)) {
    ++number;
    if (Skipped(line)) continue;
    const Where where{path, column, number};
    if (column.empty()) {
      out.push_back(ParseCell(line, where));
    } else if (IsJsonl(path)) {
      YAML::Node node;
      try {
        node = YAML::Load(line);
      } catch (const YAML::Exception&) {
        where.Fail("not a JSON object");
      }
      if (!node.IsMap()) where.Fail("not a JSON object");
      const YAML::Node field = node[column];
      if (!field.IsDefined()) where.Fail("missing");
      if (!field.IsScalar()) where.Fail("expected a number");
      out.push_back(ParseCell(field.Scalar(), where));
    } else if (header) {
      const std::vector<std::string> names = SplitCsv(line);
      index = names.size();
      std::string valid;
      for (size_t i = 0; i < names.size(); ++i) {
        if (Trim(names[i]) == column) index = i;
        valid += (i ? ", " : "") + Trim(names[i]);
      }
      if (index == names.size()) where.Fail("no such column in the header (has: " + valid + ")");
      header = false;
    } else {
      const std::vector<std::string> cells = SplitCsv(line);
      if (index >= cells.size())
        where.Fail("the line has only " + std::to_string(cells.size()) + " cells");
      out.push_back(ParseCell(cells[index], where));
    }
  }
  if (out.empty()) {
    throw std::runtime_error(path + ": no numbers" +
                             (column.empty() ? "" : " in field '" + column + "'"));
  }
  return out;
}

}  // namespace kvroute::models
