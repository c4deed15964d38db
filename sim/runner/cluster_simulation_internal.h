// The cluster simulation of one point (cluster_simulation.h), shared by the
// files that implement it: cluster_simulation.cc (set-up, the event loop and
// the result) and cluster_routing.cc (what happens to a request between its
// arrival and its engine: routing, disaggregation, retries, queue moves,
// failures). Not part of the runner's interface.
#ifndef KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_INTERNAL_H_
#define KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_INTERNAL_H_

#include <memory>
#include <vector>

#include "analysis/point_metrics.h"
#include "analysis/request_record.h"
#include "analysis/time_series.h"
#include "models/cost_model.h"
#include "models/replica.h"
#include "sim/core/event_queue.h"
#include "sim/runner/arrival_driver.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/cluster_views.h"
#include "sim/runner/deployment_policies.h"
#include "sim/runner/deployment_router.h"
#include "sim/runner/fleet_scaler.h"
#include "sim/runner/pd_router.h"
#include "sim/runner/scenario.h"
#include "sim/runner/stale_cache_view.h"

namespace kvroute::sim {

class ClusterSimulation : public models::ReplicaObserver {
 public:
  ClusterSimulation(const Scenario& scenario, const PointSpec& spec,
                    analysis::RequestRecorder* recorder);

  analysis::PointResult Run();

  void OnAdmitted(uint32_t slot, Time now) override;
  void OnFirstToken(uint32_t slot, Time now) override;
  void OnCompleted(uint32_t slot, Time now) override;

 private:
  // Where a request is in a disaggregated cluster (pd_router.h); per pool slot.
  struct PdState {
    uint32_t decode_replica = 0;    // chosen at routing
    uint32_t prefill_replica = 0;   // when split
    uint64_t prefill_failures = 0;  // that replica's failures when the transfer began
    bool split = false;             // prefilled on prefill_replica (this attempt)
    Time kv_sent = kNever, kv_arrived = kNever;
  };

  // cluster_simulation.cc
  void HandleEvent(const Event& event);
  void Finish(analysis::PointResult* result);
  void StartIteration(uint32_t replica, Time now);
  double TotalHeldBlockSeconds(Time now) const;
  void IntegrateInSystem(Time now);
  void Release(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now);
  void Record(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now);

  // cluster_routing.cc
  policies::ClusterView View(Time now, uint32_t d);
  policies::Policy& PolicyOf(uint32_t replica) {
    return *deployments_[deployment_of_[replica]].policy;
  }
  uint32_t Local(uint32_t replica) const {
    return replica - deployments_[deployment_of_[replica]].offset;
  }
  void OnArrival(const Event& event);
  void Dispatch(uint32_t slot, Time now);
  // Disaggregated: the decode replica, then the decider, then (split) the
  // prefill replica. False when no decode or prefill replica can take it.
  bool RouteDisaggregated(uint32_t slot, Time now);
  void Enqueue(uint32_t slot, Time now);
  void OnPrefilled(uint32_t slot, Time now);
  void OnTransferred(uint32_t slot, Time now);
  void NotDispatched(uint32_t slot, Time now);
  void OnLost(uint32_t slot, Time now);
  void ApplyMoves(uint32_t d, Time now);
  void ForgetHashesIfQueuedDeep(uint32_t slot);
  void OnReplicaFailure(uint32_t replica, Time now);

  const Scenario& scenario_;
  PointSpec spec_;
  Time end_of_arrivals_;
  Time hard_stop_;
  Time warmup_;
  Time last_integrated_ = 0;
  double in_system_seconds_ = 0;
  double held_block_seconds_ = 0;
  ArrivalDriver arrivals_;
  analysis::PointMetricsCollector metrics_;
  analysis::RequestRecorder* recorder_;  // may be null
  std::vector<ArrivalTag> tags_;         // per pool slot: where its request came from
  models::RequestPool pool_;
  // Per scenario deployment: its replicas' iteration-time model (their
  // profile's); per replica: the serving front end's latency on that profile
  // (API server, tokenisation).
  std::vector<std::unique_ptr<models::CostModel>> cost_models_;
  std::vector<Time> frontend_latency_;
  std::vector<models::ReplicaLoad> loads_;
  std::vector<std::unique_ptr<models::Replica>> replicas_;
  std::vector<uint64_t> iteration_event_;   // per replica: sequence of its pending iteration
  std::vector<uint8_t> failed_;             // per replica: failed, not recovered yet
  std::vector<uint32_t> dropped_;           // scratch for failures
  std::vector<policies::QueueMove> moves_;  // scratch for a policy's queue moves
  ReplicaCacheOracle oracle_;
  std::unique_ptr<StaleCacheView> event_view_;   // null unless cluster.kv_events
  Time refresh_;                                 // signal poll period; 0 = live
  std::vector<models::ReplicaLoad> seen_loads_;  // the router's last poll
  DeploymentRouter router_;
  std::vector<Deployment> deployments_;  // per routing pool (Scenario::Pools)
  std::vector<uint32_t> deployment_of_;  // per replica: its pool
  std::unique_ptr<PdRouter> pd_;         // null unless cluster.disaggregation
  std::vector<PdState> pd_state_;        // per pool slot, with pd_
  analysis::TimeSeriesRecorder timeline_;
  EventQueue events_;
  std::unique_ptr<FleetScaler> scaler_;  // null unless a deployment autoscales
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_INTERNAL_H_
