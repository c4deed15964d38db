// BurstGPT (Wang et al., "BurstGPT: A Real-World Workload Dataset to Optimize
// LLM Serving Systems", KDD'25; github.com/HPMLL/BurstGPT data/*.csv): a CSV
// whose header names Timestamp (seconds from the start of the collection),
// Model, Request tokens, Response tokens, Total tokens and Log Type, and in
// newer releases Session ID and Elapsed time. Rows whose Response tokens is 0
// are the requests that failed in production (BurstGPT_1.csv has them,
// BurstGPT_without_fails_1.csv not): they are skipped. No prefix information:
// each request is its own key, or its session's when Session ID is given; the
// Model is the tenant.
#include <algorithm>
#include <cmath>

#include "models/trace_reader_internal.h"

namespace kvroute::models::trace_internal {
namespace {

enum Column { kTimestamp, kModel, kRequest, kResponse, kTotal, kLogType, kSessionId, kElapsed };
const std::vector<std::string> kColumns = {"Timestamp",       "Model",        "Request tokens",
                                           "Response tokens", "Total tokens", "Log Type",
                                           "Session ID",      "Elapsed time"};

}  // namespace

void ReadBurstGpt(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::string line;
  uint64_t number = 0;
  std::vector<size_t> at;
  NameIds sessions, tenants;
  uint64_t index = 0;
  double previous_s = 0, first_s = 0;
  while (std::getline(in, line)) {
    const Where where{config.file, ++number};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> cells = SplitCsvLine(line);
    if (at.empty()) {
      at =
          HeaderColumns(cells, kColumns, {"Timestamp", "Request tokens", "Response tokens"}, where);
      continue;
    }
    size_t columns = 0;
    for (size_t a : at) columns += a != SIZE_MAX;
    if (cells.size() != columns) {
      where.Fail("", "expected " + std::to_string(columns) + " comma-separated fields, got " +
                         std::to_string(cells.size()));
    }
    const double s = SecondsField(cells[at[kTimestamp]], kColumns[kTimestamp], where);
    const uint64_t request =
        WholeField(cells[at[kRequest]], 1, UINT32_MAX, kColumns[kRequest], where);
    const uint64_t response =
        WholeField(cells[at[kResponse]], 0, UINT32_MAX, kColumns[kResponse], where);
    if (response == 0) continue;  // a failed request
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    if (trace->records.empty()) first_s = previous_s = s;
    if (s < previous_s) where.Fail(kColumns[kTimestamp], "earlier than the previous request's");
    previous_s = s;
    TraceRecord r;
    r.time_ns = std::llround((s - first_s) * 1e9);
    r.input_tokens = static_cast<uint32_t>(request);
    r.output_tokens = static_cast<uint32_t>(response);
    if (at[kSessionId] != SIZE_MAX && !cells[at[kSessionId]].empty()) {
      r.session = sessions.Id(cells[at[kSessionId]]);
      r.key = static_cast<uint32_t>(r.session);
    } else {
      r.key = UINT32_MAX;  // numbered below, after the sessions
    }
    r.tenant = at[kModel] != SIZE_MAX ? tenants.Id(cells[at[kModel]]) : 0;
    trace->records.push_back(r);
  }
  // Requests without a session are each their own key, after the sessions'.
  trace->keys = sessions.size();
  for (TraceRecord& r : trace->records) {
    if (r.key == UINT32_MAX) r.key = trace->keys++;
  }
  trace->tenants = at.size() > kModel && at[kModel] != SIZE_MAX ? tenants.size() : 0;
}

}  // namespace kvroute::models::trace_internal
