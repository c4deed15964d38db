#include "models/trace_reader.h"

#include <fstream>
#include <unordered_set>

#include "models/trace_reader_internal.h"
#include "sim/core/input_file.h"
#include "sim/core/time.h"

namespace kvroute::models {

const sim::ChoiceTable<TraceConfig::Format>& TraceFormats() {
  static const sim::ChoiceTable<TraceConfig::Format> table(
      "trace format",
      {{"mooncake", TraceConfig::Format::kMooncake}, {"azure", TraceConfig::Format::kAzure}});
  return table;
}

double NativeBlockHitRate(const Trace& trace) {
  std::unordered_set<uint64_t> seen;
  uint64_t hits = 0;
  for (const TraceRecord& r : trace.records) {
    for (uint32_t j = 0; j < r.hash_count; ++j)
      hits += seen.count(trace.hash_ids[r.hash_begin + j]);
    for (uint32_t j = 0; j < r.hash_count; ++j) seen.insert(trace.hash_ids[r.hash_begin + j]);
  }
  return trace.hash_ids.empty()
             ? 0
             : static_cast<double>(hits) / static_cast<double>(trace.hash_ids.size());
}

TraceConfig::Format GuessTraceFormat(const std::string& path) {
  if (path.ends_with(".jsonl")) return TraceConfig::Format::kMooncake;
  if (path.ends_with(".csv")) return TraceConfig::Format::kAzure;
  return TraceConfig::Format::kNone;
}

Trace ReadTrace(const TraceConfig& config) {
  try {
    sim::CheckInputFile(config.file, sim::kTraceInput);
  } catch (const sim::InputFileError& e) {
    throw TraceError(e.what());
  }
  std::ifstream in(config.file);
  if (!in) throw TraceError(config.file + ": cannot open trace file");
  Trace trace;
  trace.source = config.file;
  trace.format = config.format;
  if (config.format == TraceConfig::Format::kMooncake) {
    trace_internal::ReadMooncake(in, config, &trace);
  } else if (config.format == TraceConfig::Format::kAzure) {
    trace_internal::ReadAzure(in, config, &trace);
  } else {
    throw TraceError(config.file + ": " + TraceFormats().Unknown(""));
  }
  if (in.bad()) throw TraceError(config.file + ": read error");
  if (trace.records.empty()) {
    throw TraceError(config.file + ": no requests in the trace" +
                     (config.skip > 0 ? " after skipping " + std::to_string(config.skip) : ""));
  }
  return trace;
}

double TracePeriod(const Trace& trace) {
  double span = sim::ToSeconds(trace.records.back().time_ns);
  size_t n = trace.records.size();
  return n > 1 && span > 0 ? span * static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
}

double NativeQps(const Trace& trace) {
  return static_cast<double>(trace.records.size()) / TracePeriod(trace);
}

}  // namespace kvroute::models
