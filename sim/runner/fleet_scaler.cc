#include "sim/runner/fleet_scaler.h"

#include <algorithm>
#include <cmath>

#include "sim/runner/fleet_report.h"

namespace kvroute::sim {

FleetScaler::FleetScaler(const Scenario& scenario, std::span<models::ReplicaLoad> loads,
                         std::span<const uint8_t> failed,
                         const std::vector<std::unique_ptr<models::Replica>>& replicas, Time warmup,
                         Time end_of_arrivals, analysis::TimeSeriesRecorder* timeline)
    : scenario_(scenario),
      loads_(loads),
      failed_(failed),
      replicas_(replicas),
      warmup_(warmup),
      end_of_arrivals_(end_of_arrivals),
      timeline_(timeline),
      state_(loads.size(), State::kServing) {
  uint32_t offset = 0;
  for (uint32_t d = 0; d < scenario.deployments.size(); ++d) {
    const DeploymentSpec& spec = scenario.deployments[d];
    if (spec.autoscale) {
      scaled_.push_back({.deployment = d,
                         .offset = offset,
                         .size = spec.replicas,
                         .autoscaler = Autoscaler(*spec.autoscale, spec.replicas),
                         .on_ttft = spec.autoscale->signal == AutoscaleSpec::Signal::kTtft,
                         .first_tokens = {}});
    }
    offset += spec.replicas;
  }
}

FleetScaler::Scaled* FleetScaler::Of(uint32_t deployment) {
  for (Scaled& s : scaled_) {
    if (s.deployment == deployment) return &s;
  }
  return nullptr;
}

FleetScaler::Scaled* FleetScaler::OfReplica(uint32_t replica) {
  for (Scaled& s : scaled_) {
    if (replica >= s.offset && replica < s.offset + s.size) return &s;
  }
  return nullptr;
}

void FleetScaler::Set(uint32_t replica, State state) {
  state_[replica] = state;
  loads_[replica].healthy = state == State::kServing && !failed_[replica];
}

// Integrates the billed replicas over the measured window, then changes them.
void FleetScaler::Bill(Scaled& s, Time now, int delta) {
  const Time from = std::max(s.last_change, warmup_);
  const Time to = std::min(now, end_of_arrivals_);
  if (to > from) s.billed_seconds += s.billed * ToSeconds(to - from);
  timeline_->AddBilled(s.last_change, now, s.billed,
                       DeploymentFleetCost(scenario_, s.deployment, 1).UsdPerHour());
  s.last_change = std::max(s.last_change, now);
  s.billed = static_cast<uint32_t>(static_cast<int>(s.billed) + delta);
}

uint32_t FleetScaler::Count(const Scaled& s, State state) const {
  uint32_t n = 0;
  for (uint32_t r = s.offset; r < s.offset + s.size; ++r) n += state_[r] == state;
  return n;
}

void FleetScaler::Log(const Scaled& s, Time now) {
  const uint32_t serving = Count(s, State::kServing);
  log_.push_back({.at_s = ToSeconds(now),
                  .deployment = s.deployment,
                  .requested = serving + Count(s, State::kProvisioning),
                  .serving = serving,
                  .billed = s.billed});
}

void FleetScaler::Start(EventQueue& events) {
  for (Scaled& s : scaled_) {
    const AutoscaleSpec& spec = *scenario_.deployments[s.deployment].autoscale;
    for (uint32_t r = s.offset + s.autoscaler.initial(); r < s.offset + s.size; ++r) {
      Set(r, State::kOff);
    }
    s.billed = s.autoscaler.initial();
    Log(s, 0);
    if (spec.signal == AutoscaleSpec::Signal::kSchedule) {
      for (const ReplicaStep& step : spec.schedule) {
        if (FromSeconds(step.at_s) < end_of_arrivals_) {
          events.Push(FromSeconds(step.at_s), EventKind::kScaleStep, s.deployment);
        }
      }
    } else if (FromSeconds(spec.interval_s) < end_of_arrivals_) {
      events.Push(FromSeconds(spec.interval_s), EventKind::kAutoscaleTick, s.deployment);
    }
  }
}

void FleetScaler::OnFirstToken(uint32_t replica, Time ttft, Time now) {
  Scaled* s = OfReplica(replica);
  if (s != nullptr && s->on_ttft) s->first_tokens.push_back({now, ttft});
}

double FleetScaler::TtftQuantile(Scaled& s, Time now) {
  const AutoscaleSpec& spec = *scenario_.deployments[s.deployment].autoscale;
  const Time from = now - FromSeconds(spec.window_s);
  while (!s.first_tokens.empty() && s.first_tokens.front().first <= from) {
    s.first_tokens.pop_front();
  }
  if (s.first_tokens.empty()) return std::nan("");
  scratch_.clear();
  for (size_t i = 0; i < s.first_tokens.size(); ++i) scratch_.push_back(s.first_tokens[i].second);
  // The nearest-rank quantile: the smallest TTFT with at least `quantile` of
  // the window's TTFTs at or below it.
  const double rank = std::ceil(spec.quantile * static_cast<double>(scratch_.size()));
  const size_t k = static_cast<size_t>(std::max(rank, 1.0)) - 1;
  std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(k),
                   scratch_.end());
  return ToSeconds(scratch_[k]);
}

double FleetScaler::Signal(Scaled& s, Time now) {
  const AutoscaleSpec::Signal kind = scenario_.deployments[s.deployment].autoscale->signal;
  if (kind == AutoscaleSpec::Signal::kTtft) return TtftQuantile(s, now);
  double sum = 0;
  uint32_t serving = 0;
  for (uint32_t r = s.offset; r < s.offset + s.size; ++r) {
    if (!loads_[r].healthy) continue;  // HPA averages over the ready pods
    ++serving;
    sum += kind == AutoscaleSpec::Signal::kKvUse ? loads_[r].kv_utilization
                                                 : static_cast<double>(loads_[r].waiting);
  }
  return serving > 0 ? sum / serving : std::nan("");
}

uint32_t FleetScaler::Ready(const Scaled& s) const {
  uint32_t ready = 0;
  for (uint32_t r = s.offset; r < s.offset + s.size; ++r) ready += loads_[r].healthy ? 1 : 0;
  return ready;
}

void FleetScaler::OnTick(uint32_t deployment, Time now, EventQueue& events) {
  Scaled& s = *Of(deployment);
  const uint32_t requested = Count(s, State::kServing) + Count(s, State::kProvisioning);
  Apply(s, s.autoscaler.Decide(ToSeconds(now), requested, Ready(s), Signal(s, now)), now, events);
  const Time next = now + FromSeconds(scenario_.deployments[deployment].autoscale->interval_s);
  if (next < end_of_arrivals_) events.Push(next, EventKind::kAutoscaleTick, deployment);
}

void FleetScaler::OnStep(uint32_t deployment, Time now, EventQueue& events) {
  Scaled& s = *Of(deployment);
  Apply(s, s.autoscaler.Scheduled(ToSeconds(now)), now, events);
}

void FleetScaler::Apply(Scaled& s, uint32_t want, Time now, EventQueue& events) {
  uint32_t requested = Count(s, State::kServing) + Count(s, State::kProvisioning);
  if (want == requested) return;
  const Time delay =
      FromSeconds(scenario_.deployments[s.deployment].autoscale->provisioning_delay_s);
  for (uint32_t r = s.offset; r < s.offset + s.size && requested < want; ++r) {
    // Only a replica that is off is new: a draining one is on its way out.
    if (state_[r] != State::kOff) continue;
    Set(r, State::kProvisioning);
    Bill(s, now, +1);
    ++s.scale_ups;
    ++requested;
    if (delay == 0) {
      OnReady(r, now);
    } else {
      events.Push(now + delay, EventKind::kReplicaReady, r);
    }
  }
  for (State from : {State::kProvisioning, State::kServing}) {
    for (uint32_t r = s.offset + s.size; r-- > s.offset && requested > want;) {
      if (state_[r] != from) continue;
      ++s.scale_downs;
      --requested;
      if (from == State::kProvisioning || replicas_[r]->idle()) {
        Set(r, State::kOff);
        Bill(s, now, -1);
      } else {
        Set(r, State::kDraining);
      }
    }
  }
  Log(s, now);
}

void FleetScaler::OnReady(uint32_t replica, Time now) {
  // A replica whose provisioning was cancelled stays off.
  if (state_[replica] != State::kProvisioning) return;
  replicas_[replica]->StartCold(now);
  Set(replica, State::kServing);
  Log(*OfReplica(replica), now);
}

void FleetScaler::OnIterationDone(uint32_t replica, Time now) {
  if (state_[replica] != State::kDraining || !replicas_[replica]->idle()) return;
  Scaled& s = *OfReplica(replica);
  Set(replica, State::kOff);
  Bill(s, now, -1);
  Log(s, now);
}

void FleetScaler::Finish(Time end, analysis::PointResult* result) {
  const double window = ToSeconds(end_of_arrivals_ - warmup_);
  for (Scaled& s : scaled_) {
    Bill(s, end, 0);
    const std::string name = "autoscale." + scenario_.deployments[s.deployment].name + ".";
    const analysis::FleetCost cost = DeploymentFleetCost(scenario_, s.deployment, 1);
    const double replica_hours = s.billed_seconds / 3600;
    result->policy_stats.emplace_back(name + "mean_replicas", s.billed_seconds / window);
    result->policy_stats.emplace_back(name + "gpu_hours", replica_hours * cost.gpus_per_replica);
    result->policy_stats.emplace_back(
        name + "usd", cost.usd_per_gpu_hour > 0
                          ? replica_hours * cost.gpus_per_replica * cost.usd_per_gpu_hour
                          : std::nan(""));
    result->policy_stats.emplace_back(name + "scale_ups", static_cast<double>(s.scale_ups));
    result->policy_stats.emplace_back(name + "scale_downs", static_cast<double>(s.scale_downs));
  }
  result->fleet_changes = std::move(log_);
}

}  // namespace kvroute::sim
