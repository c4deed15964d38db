#include "sim/runner/cluster_simulation.h"

#include <algorithm>
#include <span>
#include <utility>

#include "models/profile.h"
#include "sim/runner/cluster_simulation_internal.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/point_setup.h"
#include "sim/runner/replica_totals.h"
#include "sim/runner/request_records.h"

namespace kvroute::sim {
namespace {

std::vector<std::unique_ptr<models::CostModel>> MakeCostModels(const Scenario& scenario) {
  std::vector<std::unique_ptr<models::CostModel>> models;
  for (size_t d = 0; d < scenario.deployments.size(); ++d) {
    models.push_back(MakeCostModel(scenario, scenario.ProfileOf(d)));
  }
  return models;
}

}  // namespace

ClusterSimulation::ClusterSimulation(const Scenario& scenario, const PointSpec& spec,
                                     analysis::RequestRecorder* recorder)
    : scenario_(scenario),
      spec_(spec),
      end_of_arrivals_(FromSeconds(scenario.duration_s)),
      hard_stop_(FromSeconds(scenario.duration_s + scenario.drain_s)),
      warmup_(FromSeconds(scenario.warmup_s)),
      arrivals_(scenario.workload, spec.seed, spec.qps, end_of_arrivals_),
      metrics_(FromSeconds(scenario.warmup_s), scenario.replica_count(), scenario.slos,
               TopTenants(arrivals_.source().tenant_shares())),
      recorder_(recorder),
      cost_models_(MakeCostModels(scenario)),
      oracle_(replicas_),
      refresh_(FromSeconds(scenario.signal_refresh_s)),
      router_(scenario, spec.seed, oracle_),
      timeline_(FromSeconds(scenario.series_interval_s)) {
  const uint32_t replicas = scenario.replica_count();
  loads_.resize(replicas);
  iteration_event_.assign(replicas, UINT64_MAX);
  failed_.assign(replicas, 0);
  seen_loads_.resize(replicas);
  const int block_size = scenario.resolved_profile.ResolvedEngine().block_size_tokens;
  for (uint32_t d = 0, r = 0; d < scenario.deployments.size(); ++d) {
    const models::SchedulerConfig scheduler = scenario.SchedulerOf(d);
    for (uint32_t i = 0; i < scenario.deployments[d].replicas; ++i, ++r) {
      frontend_latency_.push_back(cost_models_[d]->FrontendLatency());
      replicas_.push_back(std::make_unique<models::Replica>(
          r, *cost_models_[d], scheduler, scenario.KvBlocksOf(d), block_size, pool_, loads_[r]));
    }
  }
  event_view_ =
      MakeEventView(scenario, spec.seed, oracle_, replicas_, [this] { return events_.Now(); });
  deployments_ = MakeDeployments(scenario, spec, arrivals_, cost_models_, oracle_,
                                 event_view_.get(), replicas_, pool_);
  for (uint32_t d = 0; d < deployments_.size(); ++d) {
    deployment_of_.insert(deployment_of_.end(), deployments_[d].size, d);
  }
  if (scenario.disaggregation.enabled) {
    pd_ = std::make_unique<PdRouter>(scenario);
    const Deployment& decode = deployments_[pd_->decode_pool()];
    metrics_.BalanceOver(decode.offset, decode.size);
  }
  for (const DeploymentSpec& d : scenario.deployments) {
    if (d.autoscale && !scaler_) {
      scaler_ = std::make_unique<FleetScaler>(scenario, std::span(loads_), failed_, replicas_,
                                              warmup_, end_of_arrivals_, &timeline_);
    }
  }
}

analysis::PointResult ClusterSimulation::Run() {
  arrivals_.Start(events_);
  for (uint32_t d = 0; d < deployments_.size(); ++d) {
    const Time interval = deployments_[d].interval;
    if (interval > 0 && interval < end_of_arrivals_)
      events_.Push(interval, EventKind::kControlTick, d);
  }
  for (const FailureEvent& f : scenario_.failures) {
    events_.Push(FromSeconds(f.at_s), EventKind::kReplicaFailure, f.replica);
    if (f.recover_after_s > 0) {
      events_.Push(FromSeconds(f.at_s + f.recover_after_s), EventKind::kReplicaRecovery, f.replica);
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
    HandleEvent(event);
  }
  IntegrateInSystem(end_of_arrivals_);
  timeline_.ObserveUntil(events_.Now() + 1, loads_);  // the last event's instant too
  for (uint32_t slot = 0; slot < pool_.slot_count(); ++slot) {
    if (!pool_[slot].in_use) continue;
    metrics_.OnUnfinished(pool_[slot]);
    Record(slot, analysis::RequestRecord::Outcome::kUnfinished, kNever);
  }
  analysis::PointResult result;
  Finish(&result);
  result.events = handled;
  return result;
}

void ClusterSimulation::HandleEvent(const Event& event) {
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
    case EventKind::kKvTransferDone:
      OnTransferred(event.target, event.time);
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

void ClusterSimulation::Finish(analysis::PointResult* result) {
  result->policy = scenario_.policies[spec_.policy_index].label;
  result->qps = spec_.qps;
  result->seed = spec_.seed;
  metrics_.Summarize(result);
  for (const auto& replica : replicas_) AddReplicaTotals(*replica, result);
  if (event_view_) event_view_->AddCounters(result);
  AddPolicyStats(scenario_, deployments_, result);
  if (pd_) {
    pd_->AddStats(result);
    // Its pools take every request: there is no per-deployment series, and
    // no names to go with one.
    result->deployment_names.clear();
  } else if (deployments_.size() > 1) {
    result->deployment_series = router_.TakeSeries();
  }
  if (scaler_) scaler_->Finish(events_.Now(), result);
  const double window = ToSeconds(end_of_arrivals_ - warmup_);
  result->mean_in_system = in_system_seconds_ / window;
  result->mean_held_kv_blocks =
      held_block_seconds_ / window / static_cast<double>(replicas_.size());
  for (size_t d = 0; d < scenario_.deployments.size(); ++d) {
    const DeploymentSpec& spec = scenario_.deployments[d];
    if (spec.autoscale) continue;  // the scaler bills its own
    timeline_.AddBilled(0, events_.Now(), spec.replicas,
                        DeploymentFleetCost(scenario_, d, 1).UsdPerHour());
  }
  result->series = timeline_.Finish(events_.Now());
  result->simulated_s = ToSeconds(events_.Now());
}

void ClusterSimulation::OnAdmitted(uint32_t slot, Time) {
  const models::InFlightRequest& r = pool_[slot];
  metrics_.OnAdmitted(r);
  timeline_.OnAdmitted(r.request.arrival, r.request.prompt_tokens, r.hit_tokens);
  if (!pd_) router_.OnAdmitted(r, deployment_of_[r.replica]);
}

void ClusterSimulation::OnFirstToken(uint32_t slot, Time now) {
  const models::InFlightRequest& r = pool_[slot];
  PolicyOf(r.replica).OnFirstToken(r.request, Local(r.replica), now);
  // A prefill replica's token is not the client's: TTFT comes from decode.
  if (scaler_ && !r.prefill_only) scaler_->OnFirstToken(r.replica, now - r.request.arrival, now);
}

void ClusterSimulation::OnCompleted(uint32_t slot, Time now) {
  const models::InFlightRequest& r = pool_[slot];
  PolicyOf(r.replica).OnComplete(r.request, Local(r.replica), now);
  if (r.prefill_only) {
    OnPrefilled(slot, now);
    return;
  }
  metrics_.OnCompleted(r, now);
  timeline_.OnCompleted(now);
  Release(slot, analysis::RequestRecord::Outcome::kCompleted, now);
}

// The request in `slot` is done with: its record goes out, its client (in
// closed loop) may send the next one, and the slot is freed.
void ClusterSimulation::Release(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now) {
  Record(slot, outcome, now);
  const ArrivalTag tag = tags_[slot];
  pool_.Release(slot);
  arrivals_.OnDone(tag, outcome == analysis::RequestRecord::Outcome::kCompleted, now,
                   pool_.in_flight(), events_);
}

void ClusterSimulation::Record(uint32_t slot, analysis::RequestRecord::Outcome outcome, Time now) {
  if (recorder_ == nullptr) return;
  analysis::RequestRecord record = MakeRecord(pool_[slot], tags_[slot], outcome, now);
  if (pd_ && pd_state_[slot].split) {
    const PdState& state = pd_state_[slot];
    record.prefill_replica = state.prefill_replica;
    record.kv_sent = state.kv_sent;
    record.kv_arrived = state.kv_arrived;
  }
  recorder_->OnRequest(record);
}

double ClusterSimulation::TotalHeldBlockSeconds(Time now) const {
  double total = 0;
  for (const auto& replica : replicas_) total += replica->HeldBlockSeconds(now);
  return total;
}

// Accumulates requests-in-system × time over [warm-up, end of arrivals]: the
// L of Little's law.
void ClusterSimulation::IntegrateInSystem(Time now) {
  Time from = std::max(last_integrated_, warmup_);
  Time to = std::min(now, end_of_arrivals_);
  if (to > from) {
    double dt = ToSeconds(to - from);
    in_system_seconds_ += static_cast<double>(pool_.in_flight()) * dt;
  }
  last_integrated_ = std::max(last_integrated_, now);
}

void ClusterSimulation::StartIteration(uint32_t replica, Time now) {
  models::Replica& r = *replicas_[replica];
  if (r.in_iteration()) return;
  Time duration = r.StartIteration(now, *this);
  if (duration > 0) {
    iteration_event_[replica] = events_.Push(now + duration, EventKind::kIterationDone, replica);
  }
}

analysis::PointResult RunPoint(const Scenario& scenario, const PointSpec& spec,
                               analysis::RequestRecorder* recorder) {
  ClusterSimulation simulation(scenario, spec, recorder);
  return simulation.Run();
}

}  // namespace kvroute::sim
