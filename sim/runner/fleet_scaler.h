// Replicas that come and go (issue 15): the autoscalers of a scenario's
// deployments (sim/runner/autoscaler.h) applied to the simulated cluster.
// Policies see the change through the one narrow interface they already have,
// a replica's health: a replica serves (healthy) only once provisioned. Each
// replica is, at any time, in exactly one state:
//   off -> provisioning -> serving -> draining -> off
// A scale-up takes the lowest-numbered replicas that are off and makes them
// serve `provisioning_delay_s` later with an empty cache; a scale-down first
// cancels replicas still provisioning, then stops routing to the
// highest-numbered serving ones (as a StatefulSet removes its highest
// ordinal), which finish the requests they hold and then turn off. A replica
// is billed from the scale-up decision until it is off.
#ifndef KVROUTE_SIM_RUNNER_FLEET_SCALER_H_
#define KVROUTE_SIM_RUNNER_FLEET_SCALER_H_

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "analysis/point_metrics.h"
#include "analysis/time_series.h"
#include "models/replica.h"
#include "sim/core/event_queue.h"
#include "sim/core/ring_deque.h"
#include "sim/runner/autoscaler.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

class FleetScaler {
 public:
  // `loads`, `failed` (non-zero: the replica failed and has not recovered)
  // and `replicas` are the cluster's, indexed by replica, and must outlive
  // the scaler, as must `timeline`, which is told the replicas billed over
  // time. A replica takes requests (healthy) when it serves and has not
  // failed. Dollar figures use the scenario's price.
  FleetScaler(const Scenario& scenario, std::span<models::ReplicaLoad> loads,
              std::span<const uint8_t> failed,
              const std::vector<std::unique_ptr<models::Replica>>& replicas, Time warmup,
              Time end_of_arrivals, analysis::TimeSeriesRecorder* timeline);

  // The replica is on and not leaving (it takes requests unless it failed).
  bool Serving(uint32_t replica) const { return state_[replica] == State::kServing; }

  // Turns off the replicas that do not serve at time 0 and schedules the
  // decisions (every interval_s until the end of arrivals, or the schedule's steps).
  void Start(EventQueue& events);
  void OnTick(uint32_t deployment, Time now, EventQueue& events);
  void OnStep(uint32_t deployment, Time now, EventQueue& events);
  void OnReady(uint32_t replica, Time now);
  // A request's first token on `replica` at `now`, `ttft` after its arrival
  // (kept only for deployments that scale on TTFT).
  void OnFirstToken(uint32_t replica, Time ttft, Time now);
  // After the replica finished an iteration, or failed: a draining replica
  // left idle turns off.
  void OnIterationDone(uint32_t replica, Time now);
  // Adds the scaling statistics (per autoscaled deployment: mean billed
  // replicas, GPU-hours and dollars over the measured window, scale-ups,
  // scale-downs) and the change log to `result`.
  void Finish(Time end, analysis::PointResult* result);

 private:
  enum class State : uint8_t { kOff, kProvisioning, kServing, kDraining };
  struct Scaled {
    uint32_t deployment = 0;
    uint32_t offset = 0, size = 0;
    Autoscaler autoscaler;
    uint32_t billed = 0;        // replicas provisioning, serving or draining
    double billed_seconds = 0;  // replica-seconds billed in the measured window
    Time last_change = 0;
    uint64_t scale_ups = 0, scale_downs = 0;  // replicas added and removed
    bool on_ttft = false;
    RingDeque<std::pair<Time, Time>> first_tokens;  // (at, ttft) in the window, oldest first
  };

  Scaled* Of(uint32_t deployment);
  Scaled* OfReplica(uint32_t replica);
  void Set(uint32_t replica, State state);
  void Bill(Scaled& s, Time now, int delta);
  // Moves the deployment to `want` requested replicas at `now`.
  void Apply(Scaled& s, uint32_t want, Time now, EventQueue& events);
  uint32_t Count(const Scaled& s, State state) const;
  void Log(const Scaled& s, Time now);
  double Signal(Scaled& s, Time now);
  // The replicas taking requests (HPA's ready pods).
  uint32_t Ready(const Scaled& s) const;
  // The spec's quantile of the TTFTs in the last window_s, seconds; NaN if none.
  double TtftQuantile(Scaled& s, Time now);

  const Scenario& scenario_;
  std::span<models::ReplicaLoad> loads_;
  std::span<const uint8_t> failed_;
  const std::vector<std::unique_ptr<models::Replica>>& replicas_;
  Time warmup_, end_of_arrivals_;
  analysis::TimeSeriesRecorder* timeline_;
  std::vector<State> state_;  // per replica
  std::vector<Scaled> scaled_;
  std::vector<analysis::FleetChange> log_;
  std::vector<Time> scratch_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_FLEET_SCALER_H_
