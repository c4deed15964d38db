#include "models/number_column.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "models/json_line.h"
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

// The text of `column` in one JSONL line holding an object: a number as
// written, or a string's contents (a quoted number is read as a number).
std::string JsonField(const std::string& line, const std::string& column, const Where& where) {
  JsonLine json(line);
  std::string text;
  bool found = false;
  try {
    if (!json.Peek('{')) where.Fail("not a JSON object");
    json.Expect('{', "");
    if (!json.Peek('}')) {
      for (;;) {
        const std::string key = json.Key();
        if (key != column) {
          json.SkipValue(key);
        } else if (found) {
          where.Fail("given twice");
        } else {
          found = true;
          if (json.Peek('[') || json.Peek('{')) where.Fail("expected a number");
          text = json.Peek('"') ? json.String(key) : std::string(json.NumberText(key));
        }
        if (json.Peek('}')) break;
        json.Expect(',', key);
      }
    }
    json.Expect('}', "");
    if (!json.AtEnd()) where.Fail("unexpected text after the object");
  } catch (const JsonLineError& e) {
    where.Fail("malformed JSON" + (e.field().empty() ? "" : " in '" + e.field() + "'") + ": " +
               e.what());
  }
  if (!found) where.Fail("missing");
  return text;
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
      out.push_back(ParseCell(JsonField(line, column, where), where));
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
