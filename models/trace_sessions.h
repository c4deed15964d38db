// Closed-loop replay of a trace's sessions (workload.trace.pacing:
// closed_loop): each session of the trace (its named session, or a request
// without one on its own) is a session the arrival driver runs like a
// synthetic one (models/session_plan.h). Its first turn arrives at its
// timestamp, as in the open-loop replay (models/trace_replay.h, whose scaled
// times it keeps); each later turn goes out the trace's gap after the
// previous turn was sent, or when that turn's response is done if that is
// later: a think time of the trace's gap minus the previous turn's simulated
// latency, floored at zero. A cluster as fast as the trace's gaps sees the
// open-loop replay unchanged, while a slower one delays that session's
// later turns, as a user waiting for an answer would be delayed. What each
// turn sends is the open-loop replay's request: the same segments, outputs
// and session ids. A Mooncake turn given a `delay` instead of a timestamp
// (models/trace_reader_mooncake.cc) goes out that delay (scaled as the
// trace's times are) after the previous turn's response: a think time of
// its own, whatever the latency.
#ifndef KVROUTE_MODELS_TRACE_SESSIONS_H_
#define KVROUTE_MODELS_TRACE_SESSIONS_H_

#include <cstdint>
#include <vector>

#include "models/session_plan.h"
#include "models/trace_replay.h"
#include "sim/core/time.h"

namespace kvroute::models {

class TraceSessionPlan : public SessionPlan {
 public:
  // `replay` (which must outlive the plan) gives the trace and its timing;
  // prompts are hashed in blocks of `block_size` tokens.
  TraceSessionPlan(const TraceReplay& replay, uint32_t block_size);

  // Session n is the (n mod S)-th of the trace's S sessions in order of
  // their first turn, in pass n div S of a looped trace.
  void Draw(uint64_t id, Session* out) const override;
  void Emit(Session* session, uint64_t request_id, sim::Time arrival, Request* out) const override;
  // When session n's first turn arrives: non-decreasing in n; kNever for a
  // session past the end (or past the trace's last when it does not loop).
  sim::Time Start(uint64_t n) const;
  uint64_t sessions() const { return starts_.size() - 1; }

 private:
  const TraceReplay& replay_;
  uint32_t block_size_;
  // Session s's records are records_[starts_[s], starts_[s + 1]), in order.
  std::vector<uint64_t> starts_;
  std::vector<uint64_t> records_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_TRACE_SESSIONS_H_
