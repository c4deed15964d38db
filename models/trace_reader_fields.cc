// Field helpers shared by the CSV and kvroute trace readers
// (trace_reader_internal.h).
#include <charconv>
#include <cmath>
#include <sstream>

#include "models/trace_reader_internal.h"

namespace kvroute::models::trace_internal {

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    cells.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

std::vector<size_t> HeaderColumns(const std::vector<std::string>& header,
                                  const std::vector<std::string>& known,
                                  const std::vector<std::string>& required, const Where& where) {
  std::vector<size_t> at(known.size(), SIZE_MAX);
  std::string valid;
  for (size_t k = 0; k < known.size(); ++k) valid += (k ? ", " : "") + known[k];
  for (size_t i = 0; i < header.size(); ++i) {
    size_t k = 0;
    while (k < known.size() && known[k] != header[i]) ++k;
    if (k == known.size()) where.Fail(header[i], "unknown column (valid: " + valid + ")");
    if (at[k] != SIZE_MAX) where.Fail(header[i], "column given twice");
    at[k] = i;
  }
  for (const std::string& name : required) {
    size_t k = 0;
    while (known[k] != name) ++k;
    if (at[k] == SIZE_MAX) where.Fail(name, "required column is missing");
  }
  return at;
}

uint64_t WholeField(const std::string& text, uint64_t min, uint64_t max, const std::string& field,
                    const Where& where) {
  uint64_t value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || value < min ||
      value > max) {
    where.Fail(field, "expected a whole number in [" + std::to_string(min) + ", " +
                          std::to_string(max) + "], got '" + text.substr(0, 40) + "'");
  }
  return value;
}

double SecondsField(const std::string& text, const std::string& field, const Where& where) {
  double value = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() ||
      !std::isfinite(value) || value < 0) {
    where.Fail(field,
               "expected a non-negative number of seconds, got '" + text.substr(0, 40) + "'");
  }
  if (value > kMaxTimeMs / 1000) {
    where.Fail(field, "beyond the latest time kvroute's clock holds (int64 nanoseconds)");
  }
  return value;
}

}  // namespace kvroute::models::trace_internal
