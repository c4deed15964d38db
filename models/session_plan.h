// Sessions drawn whole from their own random stream, for closed-loop pacing
// (SessionConfig::closed_loop): a session's key, shared context, turns, tool
// calls, lengths, think times and tool latencies come from the stream
// ("workload.session", id) alone, so two policies, or two loads, see the same
// session with the same id whatever the cluster did to its timing.
//
// A session is a list of steps, one request each: user turn t (new user
// tokens, after think time) followed by its K_t tool steps (the outputs of
// the step's parallel calls, after the slowest call's latency). Each step's
// prompt is the previous step's prompt, the previous step's output and the
// step's new tokens, so an engine that caches generated tokens hits
// everything but the new tokens.
//
// The arrival driver runs any SessionPlan the same way: the synthetic
// sessions here, and the sessions of a trace (models/trace_sessions.h).
#ifndef KVROUTE_MODELS_SESSION_PLAN_H_
#define KVROUTE_MODELS_SESSION_PLAN_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "models/alias_table.h"
#include "models/prompt_blocks.h"
#include "models/request.h"
#include "models/workload.h"
#include "sim/core/random_stream.h"
#include "sim/core/time.h"

namespace kvroute::models {

struct SessionStep {
  bool tool = false;        // the results of tool calls, not a user turn
  uint32_t new_tokens = 0;  // appended to the prompt: user text or the calls' outputs
  uint32_t output_tokens = 0;
  double gap_s = 0;  // from the previous step's response: think time or slowest call's latency
  // Tool steps: the step's calls are Session::call_tokens[first_call, +calls).
  uint32_t first_call = 0, calls = 0;
  uint64_t trace_record = 0;  // trace sessions: the step's record in Trace::records
  // Trace sessions' timed turns: the gap counts from when the previous step
  // was sent, and the step waits for that step's response if it is later.
  bool gap_from_sent = false;
};

// One live session: what has been sent and what is still to come.
struct Session {
  uint64_t id = 0;
  uint32_t key = 0;
  uint32_t next = 0;  // the next step to send
  std::vector<PromptSegment> history;
  std::vector<SessionStep> steps;
  std::vector<uint32_t> call_tokens;  // each tool call's output, in call order
  sim::Time sent = 0;                 // when the latest step went out

  bool done() const { return next >= steps.size(); }
  // Seconds between the last response (or sending) and the next step.
  // REQUIRES: !done().
  double next_gap_s() const { return steps[next].gap_s; }
  // When the next step goes out, the previous one done with at `done`.
  // REQUIRES: !done().
  sim::Time NextSend(sim::Time done) const {
    const sim::Time gap = sim::FromSeconds(next_gap_s());
    return steps[next].gap_from_sent ? std::max(done, sent + gap) : done + gap;
  }
};

// Sessions as the arrival driver runs them: drawn whole by id, then sent
// step by step.
class SessionPlan {
 public:
  virtual ~SessionPlan() = default;
  // Draws session `id` into `out` (its vectors reused).
  virtual void Draw(uint64_t id, Session* out) const = 0;
  // Fills `out` with the session's next step as a request arriving at
  // `arrival` and advances the session. REQUIRES: !session->done().
  virtual void Emit(Session* session, uint64_t request_id, sim::Time arrival,
                    Request* out) const = 0;
};

class SessionPlanner : public SessionPlan {
 public:
  SessionPlanner(const WorkloadConfig& config, uint64_t seed);

  void Draw(uint64_t id, Session* out) const override;
  // session->history is then the request's prompt.
  void Emit(Session* session, uint64_t request_id, sim::Time arrival, Request* out) const override;

  // Expected requests per session: E[turns] (1 + E[tool steps]).
  double MeanSteps() const;
  const std::vector<double>& key_shares() const { return shares_; }
  std::vector<double> tenant_shares() const { return TenantShares(shares_, config_.tenants); }

 private:
  // Calls in one tool step, at least one.
  uint32_t ParallelCalls(sim::RandomStream& rng) const;

  WorkloadConfig config_;
  uint64_t seed_;
  std::vector<double> shares_;
  AliasTable key_table_;
  AliasTable document_table_;
};

// The sessions as an instant cluster would see them: session n starts at the
// unit-rate process's n-th time over (qps / MeanSteps()), and each step
// arrives its gap after the previous one. What workload-stats reports for a
// closed-loop workload, and the driver's view of key and tenant shares.
class SessionSource : public RequestSource {
 public:
  SessionSource(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end);

  bool Next(Request* out) override;
  const std::vector<double>& key_shares() const override { return planner_.key_shares(); }
  std::span<const PromptSegment> segments() const override { return last_segments_; }
  std::vector<double> tenant_shares() const override { return planner_.tenant_shares(); }
  const SessionPlanner& planner() const { return planner_; }

 private:
  struct Pending {
    sim::Time arrival;
    uint64_t order;
    uint32_t slot;
  };

  void AdvanceFresh();

  SessionPlanner planner_;
  ArrivalProcess arrivals_;
  double session_rate_;
  sim::Time end_;
  double unit_time_ = 0;
  sim::Time fresh_ = sim::kNever;
  uint64_t next_session_ = 0, next_id_ = 0, next_order_ = 0;
  std::vector<Session> sessions_;
  std::vector<uint32_t> free_;
  std::vector<Pending> pending_;  // a heap by (arrival, order)
  std::vector<PromptSegment> last_segments_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_SESSION_PLAN_H_
