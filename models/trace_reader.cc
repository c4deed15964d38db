#include "models/trace_reader.h"

#include <fstream>
#include <unordered_set>

#include "models/trace_reader_internal.h"
#include "sim/core/input_file.h"
#include "sim/core/time.h"

namespace kvroute::models {

const sim::ChoiceTable<TraceConfig::Format>& TraceFormats() {
  static const sim::ChoiceTable<TraceConfig::Format> table(
      "trace format", {{"auto", TraceConfig::Format::kAuto},
                       {"mooncake", TraceConfig::Format::kMooncake},
                       {"azure", TraceConfig::Format::kAzure},
                       {"burstgpt", TraceConfig::Format::kBurstGpt},
                       {"kvroute", TraceConfig::Format::kKvroute}});
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
  if (path.ends_with(".jsonl") || path.ends_with(".csv")) return TraceConfig::Format::kAuto;
  return TraceConfig::Format::kNone;
}

TraceConfig::Format DetectTraceFormat(const std::string& path) {
  try {
    sim::CheckInputFile(path, sim::kTraceInput);
  } catch (const sim::InputFileError& e) {
    throw TraceError(e.what());
  }
  std::ifstream in(path);
  if (!in) throw TraceError(path + ": cannot open trace file");
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    if (line[start] == '{') {
      return line.find("\"time_s\"") != std::string::npos ? TraceConfig::Format::kKvroute
                                                          : TraceConfig::Format::kMooncake;
    }
    if (line.find("ContextTokens") != std::string::npos) return TraceConfig::Format::kAzure;
    if (line.find("Request tokens") != std::string::npos) return TraceConfig::Format::kBurstGpt;
    if (line.find("time_s") != std::string::npos) return TraceConfig::Format::kKvroute;
    throw TraceError(path + ":" + std::to_string(number) +
                     ": cannot tell the trace format: expected a JSON object (Mooncake, or "
                     "kvroute's with time_s) or a CSV header naming ContextTokens (Azure), "
                     "Request tokens (BurstGPT) or time_s (kvroute); give workload.trace.format");
  }
  throw TraceError(path + ": no requests in the trace");
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
  trace.format =
      config.format == TraceConfig::Format::kAuto ? DetectTraceFormat(config.file) : config.format;
  switch (trace.format) {
    case TraceConfig::Format::kMooncake:
      trace_internal::ReadMooncake(in, config, &trace);
      break;
    case TraceConfig::Format::kAzure:
      trace_internal::ReadAzure(in, config, &trace);
      break;
    case TraceConfig::Format::kBurstGpt:
      trace_internal::ReadBurstGpt(in, config, &trace);
      break;
    case TraceConfig::Format::kKvroute:
      trace_internal::ReadKvroute(in, config, &trace);
      break;
    default:
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
