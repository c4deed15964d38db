// Shared by the trace readers (trace_reader_mooncake.cc, trace_reader_azure.cc);
// not part of the trace interface.
#ifndef KVROUTE_MODELS_TRACE_READER_INTERNAL_H_
#define KVROUTE_MODELS_TRACE_READER_INTERNAL_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "models/trace_reader.h"

namespace kvroute::models::trace_internal {

// Reports errors as FILE:LINE: field 'NAME': message.
struct Where {
  const std::string& file;
  uint64_t line;
  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw TraceError(file + ":" + std::to_string(line) +
                     (field.empty() ? "" : ": field '" + field + "'") + ": " + message);
  }
};

// The latest time kvroute's clock (int64 nanoseconds) holds, in milliseconds.
inline constexpr double kMaxTimeMs = 9.2e12;

void ReadMooncake(std::istream& in, const TraceConfig& config, Trace* trace);
void ReadAzure(std::istream& in, const TraceConfig& config, Trace* trace);

// "YYYY-MM-DD HH:MM:SS[.fraction]" to nanoseconds since the epoch. Returns ""
// or what is wrong with it (a date that does not exist, a year the int64
// nanosecond clock cannot hold, ...).
std::string ParseTimestamp(std::string_view s, int64_t* ns);

}  // namespace kvroute::models::trace_internal

#endif  // KVROUTE_MODELS_TRACE_READER_INTERNAL_H_
