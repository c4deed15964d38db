// Mooncake JSONL (FAST'25 release, ../shared/traces/mooncake/README-FAST25-
// release.md): one flat object per line with `timestamp` (ms),
// `input_length`, `output_length` and `hash_ids` (ids of 512-token prefix
// blocks). Each field must appear exactly once. Replay tools' Mooncake files
// (e.g. NVIDIA AIPerf's trace replay, Dynamo's dynamo_data_gen/mooncake.rs)
// may add `session_id` (a string or a number) to group a conversation's
// turns; kvroute keeps it as the request's session. A later turn may give
// `delay` (ms) instead of `timestamp`: it is sent that long after its
// session's previous turn's response (AIPerf's MooncakeTrace model in
// src/aiperf/dataset/loader/models.py, a turn's think time; the two fields
// are exclusive there too). That needs closed-loop replay (pacing:
// closed_loop); in the trace's own timeline the turn sits at its previous
// turn's time plus the delay, as if responses were instant, which is where
// looping, scaling and workload-stats place it.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "models/json_line.h"
#include "models/trace_reader_internal.h"
#include "sim/core/hashing.h"

namespace kvroute::models::trace_internal {
namespace {

// A session id: a string or a whole number, as text.
std::string SessionId(JsonLine& json, const std::string& field) {
  if (json.Peek('"')) return Tagged('s', json.String(field));
  return Tagged('n', std::to_string(json.Whole(field, 0, UINT64_MAX >> 11)));
}

struct MooncakeRecord {
  double timestamp_ms = -1;
  double delay_ms = -1;
  int64_t input = -1, output = -1;
  bool has_ids = false;
  std::vector<uint64_t> ids;
  std::string session;  // empty: none
};

void ParseLine(JsonLine& json, const Where& where, MooncakeRecord* r) {
  json.Expect('{', "");
  while (!json.Peek('}')) {
    const std::string key = json.Key();
    if (key == "timestamp") {
      if (r->timestamp_ms >= 0) where.Fail(key, "given twice");
      r->timestamp_ms = json.Number(key);
      if (r->timestamp_ms < 0) where.Fail(key, "must be non-negative");
      if (r->timestamp_ms > kMaxTimeMs) {
        where.Fail(key, "beyond the latest time kvroute's clock holds (int64 nanoseconds, " +
                            std::to_string(static_cast<int64_t>(kMaxTimeMs)) + " ms)");
      }
    } else if (key == "input_length") {
      if (r->input >= 0) where.Fail(key, "given twice");
      r->input = static_cast<int64_t>(json.Whole(key, 1, UINT32_MAX));
    } else if (key == "output_length") {
      if (r->output >= 0) where.Fail(key, "given twice");
      r->output = static_cast<int64_t>(json.Whole(key, 1, UINT32_MAX));
    } else if (key == "hash_ids") {
      if (r->has_ids) where.Fail(key, "given twice");
      r->has_ids = true;
      json.Expect('[', key);
      while (!json.Peek(']')) {
        r->ids.push_back(json.Whole(key, 0, UINT64_MAX >> 11));
        if (!json.Peek(']')) json.Expect(',', key);
      }
      json.Expect(']', key);
    } else if (key == "session_id") {
      if (!r->session.empty()) where.Fail(key, "given twice");
      r->session = SessionId(json, key);
    } else if (key == "delay") {
      if (r->delay_ms >= 0) where.Fail(key, "given twice");
      r->delay_ms = json.Number(key);
      if (r->delay_ms < 0) where.Fail(key, "must be non-negative");
      if (r->delay_ms > kMaxTimeMs) where.Fail(key, "beyond the latest time kvroute's clock holds");
    } else {
      where.Fail(key,
                 "unknown field (valid: timestamp, delay, input_length, output_length, hash_ids, "
                 "session_id)");
    }
    if (!json.Peek('}')) json.Expect(',', key);
  }
  json.Expect('}', "");
  if (!json.AtEnd()) where.Fail("", "unexpected text after the object");
  if (r->timestamp_ms >= 0 && r->delay_ms >= 0) {
    where.Fail("delay", "given with a timestamp: a turn has one or the other");
  }
  if (r->timestamp_ms < 0 && r->delay_ms < 0) {
    where.Fail("timestamp", "required field is missing (or `delay` for a session's later turn)");
  }
  if (r->delay_ms >= 0 && r->session.empty()) {
    where.Fail("delay", "needs a session_id: it counts from the session's previous response");
  }
  if (r->input < 0) where.Fail("input_length", "required field is missing");
  if (r->output < 0) where.Fail("output_length", "required field is missing");
  if (!r->has_ids) where.Fail("hash_ids", "required field is missing");
  if (r->ids.size() >
      (static_cast<uint64_t>(r->input) + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens) {
    where.Fail("hash_ids", "more 512-token blocks than input_length covers");
  }
}

// Turns given by `delay` sit at their nominal times (their previous turn's
// plus the delay), which may fall after later lines' timestamps: the records
// are sorted by time, stably, and keys renumbered in order of appearance.
void SortDelayedTurns(Trace* trace) {
  std::stable_sort(
      trace->records.begin(), trace->records.end(),
      [](const TraceRecord& a, const TraceRecord& b) { return a.time_ns < b.time_ns; });
  std::vector<uint32_t> renamed(trace->keys, UINT32_MAX);
  uint32_t next = 0;
  for (TraceRecord& r : trace->records) {
    if (renamed[r.key] == UINT32_MAX) renamed[r.key] = next++;
    r.key = renamed[r.key];
  }
}

}  // namespace

void ReadMooncake(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::unordered_map<uint64_t, uint32_t> key_of_prefix;
  NameIds sessions;
  std::vector<double> session_last_ms;  // each session's latest turn, nominal
  std::string line;
  MooncakeRecord record;
  uint64_t index = 0;
  double first_ms = 0, previous_ms = 0;
  bool delayed = false;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const Where where{config.file, number};
    JsonLine json(line);
    if (json.AtEnd()) continue;
    record = MooncakeRecord{.ids = std::move(record.ids), .session = {}};
    record.ids.clear();
    try {
      ParseLine(json, where, &record);
    } catch (const JsonLineError& e) {
      where.Fail(e.field(), e.what());
    }
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    TraceRecord r;
    if (!record.session.empty()) {
      r.session = sessions.Id(record.session);
      if (r.session >= session_last_ms.size()) session_last_ms.push_back(-1);
    }
    double at_ms = record.timestamp_ms;
    if (record.delay_ms >= 0) {
      if (!config.closed_loop) {
        where.Fail("delay",
                   "a turn sent after its previous turn's response has no time of its own: only "
                   "closed-loop replay (workload.trace.pacing: closed_loop) can send it");
      }
      if (session_last_ms[r.session] < 0) {
        where.Fail("delay", "the session's first turn (in the requests kept) needs a timestamp");
      }
      at_ms = session_last_ms[r.session] + record.delay_ms;
      if (at_ms > kMaxTimeMs) where.Fail("delay", "puts the turn beyond kvroute's clock");
      r.delay_ns = std::llround(record.delay_ms * 1e6);
      delayed = true;
    } else {
      if (trace->records.empty()) first_ms = previous_ms = at_ms;
      if (at_ms < previous_ms) where.Fail("timestamp", "earlier than the previous request's");
      if (r.session != TraceRecord::kNoSession && at_ms < session_last_ms[r.session]) {
        where.Fail("timestamp", "earlier than its session's previous turn (after its delay)");
      }
      previous_ms = at_ms;
    }
    if (r.session != TraceRecord::kNoSession) session_last_ms[r.session] = at_ms;
    r.time_ns = std::llround((at_ms - first_ms) * 1e6);
    r.input_tokens = static_cast<uint32_t>(record.input);
    r.output_tokens = static_cast<uint32_t>(record.output);
    r.hash_begin = static_cast<uint32_t>(trace->hash_ids.size());
    r.hash_count = static_cast<uint32_t>(record.ids.size());
    uint64_t prefix = 0;
    for (size_t j = 0; j < std::min<size_t>(config.key_blocks, record.ids.size()); ++j) {
      prefix = sim::Combine(prefix, record.ids[j] + 1);
    }
    auto [it, inserted] = key_of_prefix.try_emplace(prefix, trace->keys);
    if (inserted) ++trace->keys;
    r.key = it->second;
    if (trace->hash_ids.size() + record.ids.size() > UINT32_MAX) {
      where.Fail("hash_ids", "the trace holds more than 2^32 block ids in all");
    }
    trace->hash_ids.insert(trace->hash_ids.end(), record.ids.begin(), record.ids.end());
    trace->records.push_back(r);
  }
  if (delayed) SortDelayedTurns(trace);
}

}  // namespace kvroute::models::trace_internal
