#include "sim/runner/cluster_simulation.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/request_source.h"
#include "models/workload.h"
#include "sim/core/event_queue.h"
#include "sim/core/hashing.h"
#include "sim/runner/arrival_driver.h"
#include "sim/runner/cluster_views.h"
#include "sim/runner/deployment_policies.h"
#include "sim/runner/deployment_router.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/fleet_scaler.h"
#include "sim/runner/point_setup.h"
#include "sim/runner/replica_totals.h"
#include "sim/runner/request_records.h"

namespace kvroute::sim {
namespace {

class ClusterSimulation : public models::ReplicaObserver {
 public:
  ClusterSimulation(const Scenario& scenario, const PointSpec& spec,
                    analysis::RequestRecorder* recorder)
      : scenario_(scenario),
        spec_(spec),
        profile_(scenario.resolved_profile),
        cost_model_(MakeCostModel(scenario, profile_)),
        end_of_arrivals_(FromSeconds(scenario.duration_s)),
        hard_stop_(FromSeconds(scenario.duration_s + scenario.drain_s)),
        warmup_(FromSeconds(scenario.warmup_s)),
        frontend_latency_(cost_model_->FrontendLatency()),
        arrivals_(scenario.workload, spec.seed, spec.qps, end_of_arrivals_),
        metrics_(FromSeconds(scenario.warmup_s), scenario.replica_count(), scenario.slos,
                 TopTenants(arrivals_.source().tenant_shares())),
        recorder_(recorder),
        oracle_(replicas_),
        refresh_(FromSeconds(scenario.signal_refresh_s)),
        kv_blocks_(static_cast<uint32_t>(scenario.kv_blocks > 0 ? scenario.kv_blocks
                                                                : profile_.KvCapacityBlocks())),
        router_(scenario, spec.seed, kv_blocks_, oracle_),
        timeline_(FromSeconds(scenario.series_interval_s)) {
    const uint32_t replicas = scenario.replica_count();
    const uint32_t kv_blocks = kv_blocks_;
    loads_.resize(replicas);
    iteration_event_.assign(replicas, UINT64_MAX);
    failed_.assign(replicas, 0);
    seen_loads_.resize(replicas);
    for (uint32_t r = 0; r < replicas; ++r) {
      replicas_.push_back(std::make_unique<models::Replica>(
          r, *cost_model_, scenario.scheduler, kv_blocks,
          profile_.ResolvedEngine().block_size_tokens, pool_, loads_[r]));
    }
    event_view_ =
        MakeEventView(scenario, spec.seed, oracle_, replicas_, [this] { return events_.Now(); });
    deployments_ = MakeDeployments(scenario, spec, arrivals_, *cost_model_, kv_blocks, oracle_,
                                   event_view_.get(), replicas_, pool_);
    for (uint32_t d = 0; d < deployments_.size(); ++d) {
      deployment_of_.insert(deployment_of_.end(), deployments_[d].size, d);
    }
    for (const DeploymentSpec& d : scenario.deployments) {
      if (d.autoscale && !scaler_) {
        scaler_ = std::make_unique<FleetScaler>(scenario, std::span(loads_), failed_, replicas_,
                                                warmup_, end_of_arrivals_, &timeline_);
      }
    }
  }

  analysis::PointResult Run() {
    arrivals_.Start(events_);
    for (uint32_t d = 0; d < deployments_.size(); ++d) {
      const Time interval = deployments_[d].interval;
      if (interval > 0 && interval < end_of_arrivals_)
        events_.Push(interval, EventKind::kControlTick, d);
    }
    for (const FailureEvent& f : scenario_.failures) {
      events_.Push(FromSeconds(f.at_s), EventKind::kReplicaFailure, f.replica);
      if (f.recover_after_s > 0) {
        events_.Push(FromSeconds(f.at_s + f.recover_after_s), EventKind::kReplicaRecovery,
                     f.replica);
      }
    }
    if (scaler_) scaler_->Start(events_);
    if (refresh_ > 0) events_.Push(0, EventKind::kSignalRefresh);
    events_.Push(warmup_, EventKind::kMeasureStart);
    events_.Push(end_of_arrivals_, EventKind::kMeasureEnd);

    uint64_t handled = 0;
    while (!events_.Empty() && events_.Top().time <= hard_stop_) {
      Event event = events_.Pop();
      ++handled;
      IntegrateInSystem(event.time);
      timeline_.ObserveUntil(event.time, loads_);
      switch (event.kind) {
        case EventKind::kArrival:
          OnArrival(event);
          break;
        case EventKind::kEnqueue:
          Enqueue(event.target, event.time);
          break;
        case EventKind::kIterationDone:
          // The iteration of a replica that failed meanwhile never finishes.
          if (event.sequence != iteration_event_[event.target]) break;
          replicas_[event.target]->FinishIteration(event.time, *this);
          StartIteration(event.target, event.time);
          if (scaler_) scaler_->OnIterationDone(event.target, event.time);
          break;
        case EventKind::kReplicaFailure:
          OnReplicaFailure(event.target, event.time);
          break;
        case EventKind::kReplicaRecovery:
          if (!failed_[event.target]) break;
          failed_[event.target] = 0;
          timeline_.OnRecovery(event.time);
          // Back with an empty cache, if its autoscaler still wants it.
          loads_[event.target].healthy = !scaler_ || scaler_->Serving(event.target);
          break;
        case EventKind::kControlTick: {
          Deployment& d = deployments_[event.target];
          d.policy->OnControlTick(View(event.time, event.target));
          if (event.time + d.interval < end_of_arrivals_) {
            events_.Push(event.time + d.interval, EventKind::kControlTick, event.target);
          }
          break;
        }
        case EventKind::kMeasureStart:
          held_block_seconds_ -= TotalHeldBlockSeconds(event.time);
          break;
        case EventKind::kMeasureEnd:
          held_block_seconds_ += TotalHeldBlockSeconds(event.time);
          break;
        case EventKind::kAutoscaleTick:
          scaler_->OnTick(event.target, event.time, events_);
          break;
        case EventKind::kScaleStep:
          scaler_->OnStep(event.target, event.time, events_);
          break;
        case EventKind::kReplicaReady:
          scaler_->OnReady(event.target, event.time);
          break;
        case EventKind::kSignalRefresh:
          seen_loads_ = loads_;
          if (event.time + refresh_ < end_of_arrivals_) {
            events_.Push(event.time + refresh_, EventKind::kSignalRefresh);
          }
          break;
      }
    }
    IntegrateInSystem(end_of_arrivals_);
    timeline_.ObserveUntil(events_.Now() + 1, loads_);  // the last event's instant too
    for (uint32_t slot = 0; slot < pool_.slot_count(); ++slot) {
      if (!pool_[slot].in_use) continue;
      metrics_.OnUnfinished(pool_[slot]);
      Record(slot, analysis::RequestRecord::Outcome::kUnfinished, kNever);
    }

    analysis::PointResult result;
    result.policy = scenario_.policies[spec_.policy_index].label;
    result.qps = spec_.qps;
    result.seed = spec_.seed;
    metrics_.Summarize(&result);
    for (const auto& replica : replicas_) AddReplicaTotals(*replica, &result);
    if (event_view_) event_view_->AddCounters(&result);
    AddPolicyStats(scenario_, deployments_, &result);
    if (deployments_.size() > 1) result.deployment_series = router_.TakeSeries();
    if (scaler_) scaler_->Finish(events_.Now(), &result);
    const double window = ToSeconds(end_of_arrivals_ - warmup_);
    result.mean_in_system = in_system_seconds_ / window;
    result.mean_held_kv_blocks =
        held_block_seconds_ / window / static_cast<double>(replicas_.size());
    for (const DeploymentSpec& d : scenario_.deployments) {
      if (!d.autoscale)
        timeline_.AddBilled(0, events_.Now(), d.replicas);  // the scaler bills its own
    }
    result.series = timeline_.Finish(events_.Now(), ScenarioFleetCost(scenario_, 1).UsdPerHour());
    result.simulated_s = ToSeconds(events_.Now());
    result.events = handled;
    return result;
  }

  void OnAdmitted(uint32_t slot, Time) override {
    const models::InFlightRequest& r = pool_[slot];
    metrics_.OnAdmitted(r);
    timeline_.OnAdmitted(r.request.arrival, r.request.prompt_tokens, r.hit_tokens);
    router_.OnAdmitted(r, deployment_of_[r.replica]);
  }
  void OnFirstToken(uint32_t slot, Time now) override {
    const models::InFlightRequest& r = pool_[slot];
    PolicyOf(r.replica).OnFirstToken(r.request, Local(r.replica), now);
    if (scaler_) scaler_->OnFirstToken(r.replica, now - r.request.arrival, now);
  }
  void OnCompleted(uint32_t slot, Time now) override {
    const models::InFlightRequest& r = pool_[slot];
    metrics_.OnCompleted(r, now);
    timeline_.OnCompleted(now);
    PolicyOf(r.replica).OnComplete(r.request, Local(r.replica), now);
    Release(slot, analysis::RequestRecord::Outcome::kCompleted, now);
  }

 private:
  // Deployment d's replicas, indexed from 0.
  policies::ClusterView View(Time now, uint32_t d) {
    // With polling, loads come from the last poll; health is always current
    // (a failed replica refuses connections at once).
    const Deployment& dep = deployments_[d];
    std::span<const models::ReplicaLoad> loads = loads_;
    if (refresh_ > 0) {
      for (size_t r = 0; r < loads_.size(); ++r) seen_loads_[r].healthy = loads_[r].healthy;
      loads = seen_loads_;
    }
    return policies::ClusterView{loads.subspan(dep.offset, dep.size), now, dep.oracle.get(),
                                 dep.queues.get()};
  }

  policies::Policy& PolicyOf(uint32_t replica) {
    return *deployments_[deployment_of_[replica]].policy;
  }
  uint32_t Local(uint32_t replica) const {
    return replica - deployments_[deployment_of_[replica]].offset;
  }

  void OnArrival(const Event& event) {
    const uint32_t slot = pool_.Acquire();
    models::InFlightRequest& r = pool_[slot];
    if (tags_.size() <= slot) tags_.resize(slot + 1);
    if (!arrivals_.Arrive(event, &r.request, &tags_[slot], events_)) {
      pool_.Release(slot);
      return;
    }
    metrics_.OnArrival(r.request);
    timeline_.OnArrival(r.request.arrival);
    Dispatch(slot, event.time);
  }

  // Routes the request in `slot`; it reaches the chosen replica's engine once
  // it has passed the serving front end.
  void Dispatch(uint32_t slot, Time now) {
    models::InFlightRequest& r = pool_[slot];
    const uint32_t d = router_.Pick(r.request, now, loads_);
    if (d == router_.count()) {
      r.route_reason = nullptr;  // never routed (a retry's earlier reason no longer holds)
      r.route_score = policies::RouteExplanation::kNoScore;
      metrics_.OnFailed(r.request);
      Release(slot, analysis::RequestRecord::Outcome::kFailed, now);
      return;
    }
    Deployment& dep = deployments_[d];
    const uint32_t local = dep.policy->Route(r.request, View(now, d));
    r.replica = dep.offset + local;
    r.route_reason = dep.policy->LastRoute().reason;  // the choice inside deployment d
    r.route_score = dep.policy->LastRoute().score;
    router_.OnRouted(r.request, d);
    if (frontend_latency_ > 0) {
      events_.Push(now + frontend_latency_, EventKind::kEnqueue, slot);
    } else {
      Enqueue(slot, now);
    }
  }

  // Queues the request in `slot` on the replica it was routed to.
  void Enqueue(uint32_t slot, Time now) {
    models::InFlightRequest& r = pool_[slot];
    const uint32_t d = deployment_of_[r.replica];
    Deployment& dep = deployments_[d];
    const uint32_t local = Local(r.replica);
    if (!loads_[r.replica].healthy) {  // it failed while the request was in the front end
      OnLost(slot, now);
      return;
    }
    if (replicas_[r.replica]->Enqueue(slot, now)) {
      dep.policy->OnDispatch(r.request, local, now);
      router_.OnQueued(r.request, d, now);
      metrics_.OnDispatched(r.request, r.replica);
      StartIteration(r.replica, now);
      ApplyMoves(d, now);
    } else {
      metrics_.OnRejected(r.request);
      Release(slot, analysis::RequestRecord::Outcome::kRejected, now);
    }
  }

  // A request whose replica is lost is retried on another one up to the
  // scenario's retry limit, else failed.
  void OnLost(uint32_t slot, Time now) {
    models::InFlightRequest& r = pool_[slot];
    if (r.retries >= scenario_.retry_limit) {
      metrics_.OnFailed(r.request);
      Release(slot, analysis::RequestRecord::Outcome::kFailed, now);
      return;
    }
    ++r.retries;
    metrics_.OnRetried(r.request);
    Dispatch(slot, now);
  }

  // The request in `slot` is done with: its record goes out, its client (in
  // closed loop) may send the next one, and the slot is freed.
  void Release(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now) {
    Record(slot, outcome, now);
    const ArrivalTag tag = tags_[slot];
    pool_.Release(slot);
    arrivals_.OnDone(tag, outcome == analysis::RequestRecord::Outcome::kCompleted, now,
                     pool_.in_flight(), events_);
  }

  void Record(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now) {
    if (recorder_ != nullptr) {
      recorder_->OnRequest(MakeRecord(pool_[slot], tags_[slot], outcome, now));
    }
  }

  // The queued requests deployment d's policy moves after a dispatch. A moved
  // request keeps its slot, arrival time and metrics; `replica_requests`
  // still counts it where it was first dispatched.
  void ApplyMoves(uint32_t d, Time now) {
    Deployment& dep = deployments_[d];
    moves_.clear();
    dep.policy->Rebalance(View(now, d), &moves_);
    for (const policies::QueueMove& move : moves_) {
      assert(move.from < dep.size && move.to < dep.size && move.from != move.to);
      const uint32_t to = dep.offset + move.to;
      assert(loads_[to].healthy);
      const uint32_t slot = replicas_[dep.offset + move.from]->WithdrawWaiting(move.request_id);
      if (slot == models::Replica::kNoSlot) continue;
      models::InFlightRequest& r = pool_[slot];
      dep.policy->OnComplete(r.request, move.from, now);  // it no longer waits there
      r.replica = to;
      r.route_reason = "rebalanced";  // the policy moved it off its routed replica
      r.route_score = policies::RouteExplanation::kNoScore;
      if (!replicas_[to]->Enqueue(slot, now)) {  // replicas share one pool size: cannot happen
        metrics_.OnRejected(r.request);
        Release(slot, analysis::RequestRecord::Outcome::kRejected, now);
        continue;
      }
      dep.policy->OnDispatch(r.request, move.to, now);
      StartIteration(to, now);
    }
  }

  // A failed replica loses its cache and its work; each request it held is
  // retried on another replica up to the scenario's retry limit, else failed.
  void OnReplicaFailure(uint32_t replica, Time now) {
    if (failed_[replica]) return;
    failed_[replica] = 1;
    loads_[replica].healthy = false;
    timeline_.OnFailure(now);
    iteration_event_[replica] = UINT64_MAX;  // its iteration in flight never finishes
    dropped_.clear();
    replicas_[replica]->Fail(now, &dropped_);
    for (uint32_t slot : dropped_) {
      PolicyOf(replica).OnComplete(pool_[slot].request, Local(replica),
                                   now);  // it no longer runs there
      OnLost(slot, now);
    }
    if (scaler_) scaler_->OnIterationDone(replica, now);  // a draining one is now idle: off
  }

  double TotalHeldBlockSeconds(Time now) const {
    double total = 0;
    for (const auto& replica : replicas_) total += replica->HeldBlockSeconds(now);
    return total;
  }

  // Accumulates requests-in-system × time over [warm-up, end of arrivals]: the
  // L of Little's law.
  void IntegrateInSystem(Time now) {
    Time from = std::max(last_integrated_, warmup_);
    Time to = std::min(now, end_of_arrivals_);
    if (to > from) {
      double dt = ToSeconds(to - from);
      in_system_seconds_ += static_cast<double>(pool_.in_flight()) * dt;
    }
    last_integrated_ = std::max(last_integrated_, now);
  }

  void StartIteration(uint32_t replica, Time now) {
    models::Replica& r = *replicas_[replica];
    if (r.in_iteration()) return;
    Time duration = r.StartIteration(now, *this);
    if (duration > 0) {
      iteration_event_[replica] = events_.Push(now + duration, EventKind::kIterationDone, replica);
    }
  }

  const Scenario& scenario_;
  PointSpec spec_;
  const models::Profile& profile_;
  std::unique_ptr<models::CostModel> cost_model_;
  Time end_of_arrivals_;
  Time hard_stop_;
  Time warmup_;
  Time last_integrated_ = 0;
  double in_system_seconds_ = 0;
  double held_block_seconds_ = 0;
  Time frontend_latency_;  // API server, tokenisation, streaming (cost model)
  ArrivalDriver arrivals_;
  analysis::PointMetricsCollector metrics_;
  analysis::RequestRecorder* recorder_;  // may be null
  std::vector<ArrivalTag> tags_;         // per pool slot: where its request came from
  models::RequestPool pool_;
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
  uint32_t kv_blocks_;                           // per replica
  DeploymentRouter router_;
  std::vector<Deployment> deployments_;
  std::vector<uint32_t> deployment_of_;  // per replica
  analysis::TimeSeriesRecorder timeline_;
  EventQueue events_;
  std::unique_ptr<FleetScaler> scaler_;  // null unless a deployment autoscales
};

}  // namespace

analysis::PointResult RunPoint(const Scenario& scenario, const PointSpec& spec,
                               analysis::RequestRecorder* recorder) {
  ClusterSimulation simulation(scenario, spec, recorder);
  return simulation.Run();
}

}  // namespace kvroute::sim
