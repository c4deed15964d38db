// Where a simulation's requests come from and when (DESIGN.md, "Randomness"):
//  - open loop: the workload's own arrival times (the unit-rate process scaled
//    by the load, or a trace's timestamps);
//  - closed loop (workload.closed_loop): N clients, each sending its next
//    request think time after its previous one is done with;
//  - load stages (workload.stages): a Poisson process conditioned on each
//    stage's count, the next stage starting once the system has drained;
//  - closed-loop sessions (workload.sessions.closed_loop): each session sends
//    its next turn or tool call think time (or tool latency) after its
//    previous response; sessions start at the open-loop process's times, or
//    one after another on each closed-loop client. A trace's sessions
//    (workload.trace.pacing: closed_loop, models/trace_sessions.h) run the
//    same way, each starting at its first turn's time.
// Request content always comes from the workload in its own order, so the
// request stream stays common to every policy; in closed loop and stages
// only the timing depends on the simulation. inference-perf's multi-turn chat
// (workload.shared_prefix.enable_multi_turn_chat) runs on any of those
// timings, but a round due while its user's previous round is in flight waits
// for it (models/shared_prefix_chat.h), and its content is made when it is
// sent. Closed-loop sessions are paired
// session by session instead: each draws everything from its own stream
// (models/session_plan.h), so session n (or client c's j-th session) is the
// same for every policy, while how many of them run depends on the timing.
#ifndef KVROUTE_SIM_RUNNER_ARRIVAL_DRIVER_H_
#define KVROUTE_SIM_RUNNER_ARRIVAL_DRIVER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "models/request_source.h"
#include "models/session_plan.h"
#include "models/shared_prefix_source.h"
#include "models/trace_sessions.h"
#include "models/workload.h"
#include "sim/core/event_queue.h"
#include "sim/core/random_stream.h"

namespace kvroute::sim {

// Where an arrived request came from: its closed-loop client, load stage and
// closed-loop session slot.
struct ArrivalTag {
  static constexpr uint32_t kNoClient = UINT32_MAX;
  uint32_t client = kNoClient;
  uint32_t stage = 0;
  uint32_t session_slot = kNoClient;
};

class ArrivalDriver {
 public:
  // Open-loop arrivals stop at `end`; closed-loop clients send nothing from
  // `end` on. Throws std::invalid_argument for combinations it cannot run.
  ArrivalDriver(const models::WorkloadConfig& config, uint64_t seed, double qps, Time end);

  // The workload (of the current stage): key shares, segments, true rates.
  const models::RequestSource& source() const { return *source_; }

  // Pushes the first arrivals.
  void Start(EventQueue& events);

  // At a kArrival event: fills `out` with the request arriving now and `tag`
  // with where it came from, and pushes the next arrival that follows from
  // the workload alone. False when nothing arrives (the workload ran out).
  bool Arrive(const Event& event, models::Request* out, ArrivalTag* tag, EventQueue& events);

  // The request tagged `tag` is done with at `now` (completed, or rejected
  // or failed when !completed), leaving `in_flight` requests in the system.
  // A closed-loop session whose request was not completed ends there.
  void OnDone(const ArrivalTag& tag, bool completed, Time now, size_t in_flight,
              EventQueue& events);

 private:
  enum class Mode { kOpen, kClosed, kStaged, kSessions };
  // An arrival event's target for the start of an open-loop session.
  static constexpr uint32_t kNewSession = UINT32_MAX;
  // An arrival event's target for a chat round that waited for its user's
  // previous round: this bit on the user.
  static constexpr uint32_t kReleaseBit = 0x80000000u;

  // Closed-loop clients have sent workload.closed_loop.max_requests.
  bool BudgetSpent() const {
    return config_.closed_loop.max_requests > 0 && issued_ >= config_.closed_loop.max_requests;
  }
  // The workload of a stage (0 without stages) at `qps` until `end`.
  std::unique_ptr<models::RequestSource> MakeSource(double qps, Time end, uint32_t stage);
  void StartStage(uint32_t stage, Time start, EventQueue& events);
  bool ArriveInChat(const Event& event, models::Request* out, ArrivalTag* tag, EventQueue& events);
  void PushNextSessionStart(EventQueue& events);
  bool ArriveInSession(const Event& event, models::Request* out, ArrivalTag* tag,
                       EventQueue& events);
  void SessionDone(uint32_t slot, bool completed, Time now, EventQueue& events);

  models::WorkloadConfig config_;
  uint64_t seed_;
  Time end_;
  Mode mode_ = Mode::kOpen;
  std::unique_ptr<models::RequestSource> source_;
  models::Request next_;  // open loop: the next request, already drawn
  bool has_next_ = false;
  // Closed loop.
  uint32_t clients_ = 0;
  std::vector<RandomStream> think_rng_;  // per client
  uint64_t issued_ = 0;
  // Closed-loop sessions: one slot per live session (per client with clients).
  const models::SessionPlan* planner_ = nullptr;          // owned by source_ or trace_plan_
  std::unique_ptr<models::TraceSessionPlan> trace_plan_;  // a trace's sessions
  std::vector<models::Session> sessions_;
  std::vector<uint32_t> free_sessions_;
  std::vector<uint32_t> client_sessions_;  // per client: sessions started
  std::unique_ptr<models::ArrivalProcess> session_starts_;
  double session_unit_time_ = 0;
  double session_rate_ = 0;
  uint64_t next_session_ = 0, next_request_id_ = 0;
  // Multi-turn chat.
  models::SharedPrefixSource* chat_source_ = nullptr;  // owned by source_
  Time chat_next_ = kNever;                            // open loop: the next round due
  uint64_t chat_due_ = 0;       // rounds due so far in the stage (inference-perf's data index)
  uint64_t chat_released_ = 0;  // waiting rounds released, their arrival still to come
  // Stages.
  uint32_t stage_ = 0;
  std::vector<Time> stage_times_;  // arrival times of the current stage
  size_t stage_next_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_ARRIVAL_DRIVER_H_
