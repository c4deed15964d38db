// Shared by the trace readers (trace_reader_mooncake.cc, trace_reader_azure.cc);
// not part of the trace interface.
#ifndef KVROUTE_MODELS_TRACE_READER_INTERNAL_H_
#define KVROUTE_MODELS_TRACE_READER_INTERNAL_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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
void ReadBurstGpt(std::istream& in, const TraceConfig& config, Trace* trace);
// kvroute's CSV or JSONL, told apart by the first non-blank line.
void ReadKvroute(std::istream& in, const TraceConfig& config, Trace* trace);

// `name` marked with a one-letter kind, so names of different kinds differ.
inline std::string Tagged(char kind, const std::string& name) {
  std::string out(1, kind);
  out += name;
  return out;
}

// Dense ids for names (sessions, tenants, keys) in order of first appearance.
class NameIds {
 public:
  uint32_t Id(const std::string& name) {
    auto [it, added] = ids_.try_emplace(name, static_cast<uint32_t>(ids_.size()));
    return it->second;
  }
  uint32_t size() const { return static_cast<uint32_t>(ids_.size()); }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
};

// Splits a CSV line at commas (no quoting: none of the formats quote).
std::vector<std::string> SplitCsvLine(const std::string& line);

// A header's columns by name: the index of each of `known` (SIZE_MAX when
// absent). Fails naming an unknown or repeated column, or a missing one of
// `required`.
std::vector<size_t> HeaderColumns(const std::vector<std::string>& header,
                                  const std::vector<std::string>& known,
                                  const std::vector<std::string>& required, const Where& where);

// A whole number in [min, max] from `text`, or a failure naming `field`.
uint64_t WholeField(const std::string& text, uint64_t min, uint64_t max, const std::string& field,
                    const Where& where);
// A finite non-negative number of seconds from `text`, or a failure naming `field`.
double SecondsField(const std::string& text, const std::string& field, const Where& where);

// "YYYY-MM-DD HH:MM:SS[.fraction]" to nanoseconds since the epoch. Returns ""
// or what is wrong with it (a date that does not exist, a year the int64
// nanosecond clock cannot hold, ...).
std::string ParseTimestamp(std::string_view s, int64_t* ns);

}  // namespace kvroute::models::trace_internal

#endif  // KVROUTE_MODELS_TRACE_READER_INTERNAL_H_
