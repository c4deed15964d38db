#include "models/trace_sessions.h"

namespace kvroute::models {

TraceSessionPlan::TraceSessionPlan(const TraceReplay& replay, uint32_t block_size)
    : replay_(replay), block_size_(block_size) {
  const std::vector<TraceRecord>& records = replay.trace().records;
  // Each record's session in order of first turn: its named session's, or
  // one of its own. Records are in time order, so sessions are too.
  constexpr uint64_t kNone = UINT64_MAX;
  std::vector<uint64_t> of_named, of_record(records.size());
  uint64_t sessions = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const uint64_t named = records[i].session;
    if (named == TraceRecord::kNoSession) {
      of_record[i] = sessions++;
      continue;
    }
    if (named >= of_named.size()) of_named.resize(named + 1, kNone);
    if (of_named[named] == kNone) of_named[named] = sessions++;
    of_record[i] = of_named[named];
  }
  // A counting sort keeps each session's records in time order.
  starts_.assign(sessions + 1, 0);
  for (uint64_t s : of_record) ++starts_[s + 1];
  for (uint64_t s = 0; s < sessions; ++s) starts_[s + 1] += starts_[s];
  records_.resize(records.size());
  std::vector<uint64_t> filled(starts_.begin(), starts_.end() - 1);
  for (size_t i = 0; i < records.size(); ++i) records_[filled[of_record[i]]++] = i;
}

sim::Time TraceSessionPlan::Start(uint64_t n) const {
  const uint64_t pass = n / sessions();
  if (pass > 0 && !replay_.loop()) return sim::kNever;
  return replay_.ArrivalOf(pass, records_[starts_[n % sessions()]]);
}

// The turns that arrive before the end in the open-loop replay, each with
// its gap after the previous one there (after its response, for a turn the
// trace gives a `delay`).
void TraceSessionPlan::Draw(uint64_t id, Session* out) const {
  Session& s = *out;
  const uint64_t session = id % sessions(), pass = id / sessions();
  s.id = id;
  s.next = 0;
  s.history.clear();
  s.steps.clear();
  s.call_tokens.clear();
  const std::vector<TraceRecord>& records = replay_.trace().records;
  s.key = records[records_[starts_[session]]].key;
  sim::Time previous = 0;
  for (uint64_t i = starts_[session]; i < starts_[session + 1]; ++i) {
    const sim::Time arrival = replay_.ArrivalOf(pass, records_[i]);
    if (arrival == sim::kNever) break;
    SessionStep step;
    step.new_tokens = records[records_[i]].input_tokens;
    step.output_tokens = records[records_[i]].output_tokens;
    step.gap_s = s.steps.empty() ? 0 : sim::ToSeconds(arrival - previous);
    step.trace_record = records_[i];
    // A `delay` turn's gap counts from the response: the replay's (scaled)
    // distance to the previous turn is the delay itself.
    step.gap_from_sent = records[records_[i]].delay_ns < 0;
    s.steps.push_back(step);
    previous = arrival;
  }
}

// session->history is then the request's prompt segments.
void TraceSessionPlan::Emit(Session* session, uint64_t request_id, sim::Time arrival,
                            Request* out) const {
  Session& s = *session;
  const SessionStep& step = s.steps[s.next++];
  out->id = request_id;
  out->arrival = arrival;
  const PromptSegment output =
      TraceRequest(replay_.trace(), step.trace_record, s.id / sessions(), out, &s.history);
  HashSequenceBlocks(s.history, output, block_size_, out->hashes.mutable_prompt(),
                     out->hashes.mutable_output());
}

}  // namespace kvroute::models
