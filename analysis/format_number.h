// printf-style formatting of one number into a std::string, for the text
// tables kvroute prints.
#ifndef KVROUTE_ANALYSIS_FORMAT_NUMBER_H_
#define KVROUTE_ANALYSIS_FORMAT_NUMBER_H_

#include <cstdio>
#include <string>

namespace kvroute::analysis {

// REQUIRES: `format` has exactly one conversion, for a double.
inline std::string FormatNumber(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_FORMAT_NUMBER_H_
