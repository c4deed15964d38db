#include "analysis/field_table.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace kvroute::analysis {

std::string CheckText(FieldRange range, std::string_view value) {
  if (range != FieldRange::kName) return "is text, expected a number";
  if (value.empty()) return "is empty";
  if (value.size() > 1024) return "is longer than 1024 bytes";
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "holds a control character";
  }
  return "";
}

std::string CheckCount(FieldRange range, uint64_t value) {
  switch (range) {
    case FieldRange::kAnyCount:
      return "";
    case FieldRange::kSmallCount:
      return value <= UINT32_MAX ? "" : "is " + std::to_string(value) + ", above 2^32 - 1";
    case FieldRange::kFlag:
      return value <= 1 ? "" : "is " + std::to_string(value) + ", expected 0 or 1";
    default:
      return "is an integer, expected another type";
  }
}

std::string CheckReal(FieldRange range, double value) {
  auto bad = [&](const char* expected) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return "is " + std::string(buffer) + ", expected " + expected;
  };
  switch (range) {
    case FieldRange::kPositive:
      return std::isfinite(value) && value > 0 ? "" : bad("a finite number > 0");
    case FieldRange::kNonNegative:
      return std::isnan(value) || (std::isfinite(value) && value >= 0)
                 ? ""
                 : bad("a finite number >= 0 (or NaN)");
    case FieldRange::kShare:
      return std::isnan(value) || (value >= 0 && value <= 1) ? "" : bad("a share in [0, 1]");
    case FieldRange::kLatency:
      return std::isnan(value) || value >= 0 ? "" : bad("seconds >= 0, +inf or NaN");
    case FieldRange::kAnyReal:
      return "";
    default:
      return "is a number, expected another type";
  }
}

std::string_view TypeName(FieldType type) {
  switch (type) {
    case FieldType::kText:
      return "text";
    case FieldType::kCount:
      return "uint64";
    case FieldType::kReal:
      return "float64";
  }
  return "";
}

std::string_view RangeText(FieldRange range) {
  switch (range) {
    case FieldRange::kName:
      return "non-empty, printable";
    case FieldRange::kAnyCount:
      return "≥ 0";
    case FieldRange::kSmallCount:
      return "< 2³²";
    case FieldRange::kFlag:
      return "0 or 1";
    case FieldRange::kPositive:
      return "> 0";
    case FieldRange::kNonNegative:
      return "≥ 0; NaN: no data";
    case FieldRange::kShare:
      return "[0, 1]; NaN: no data";
    case FieldRange::kLatency:
      return "≥ 0; +inf: censored; NaN: no data";
    case FieldRange::kAnyReal:
      return "any; NaN: none";
  }
  return "";
}

}  // namespace kvroute::analysis
