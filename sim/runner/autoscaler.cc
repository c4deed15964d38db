#include "sim/runner/autoscaler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kvroute::sim {

Autoscaler::Autoscaler(const AutoscaleSpec& spec, uint32_t max_replicas)
    : spec_(spec), max_replicas_(max_replicas) {}

uint32_t Autoscaler::Clamp(double replicas) const {
  return static_cast<uint32_t>(std::clamp(replicas, static_cast<double>(spec_.min_replicas),
                                          static_cast<double>(max_replicas_)));
}

uint32_t Autoscaler::Desired(uint32_t requested, uint32_t ready, double signal) const {
  // replica_calculator.go: a signal that cannot be read (no ready replica, no
  // first token in the window) changes nothing, nor does one within the
  // tolerance.
  if (!std::isfinite(signal) || ready == 0) return requested;
  const double ratio = signal / spec_.target;
  if (std::abs(ratio - 1) <= spec_.tolerance) return requested;
  const double scaled = ratio * ready;
  // GetExternalMetricReplicas (the TTFT quantile is one deployment-wide
  // value): ceil(ratio x ready pods), whatever is still starting.
  if (spec_.signal == AutoscaleSpec::Signal::kTtft) return Clamp(std::ceil(scaled));
  // calcPlainMetricReplicas (a per-pod average): pods not ready, here those
  // still provisioning or failed, are left out of the average; on a scale-up
  // they are counted as reading 0 (rebalanceIgnored), so the ratio over all
  // requested replicas is ratio x ready / requested; if that no longer calls
  // for a scale-up, nothing changes. On a scale-down they are left out.
  const uint32_t not_ready = requested > ready ? requested - ready : 0;
  if (not_ready > 0 && ratio > 1) {
    const double rebalanced = scaled / requested;
    if (rebalanced <= 1 + spec_.tolerance) return requested;
  }
  return Clamp(std::ceil(scaled));
}

uint32_t Autoscaler::Decide(double now_s, uint32_t requested, uint32_t ready, double signal) {
  const uint32_t desired = Desired(requested, ready, signal);
  const uint32_t next = Clamp(RateLimited(now_s, requested, Stabilized(now_s, requested, desired)));
  // horizontal.go, storeScaleEvent: the change made now counts against the
  // rate policies of the periods that contain it.
  if (next != requested) {
    events_.push_back({now_s, static_cast<int32_t>(next) - static_cast<int32_t>(requested)});
  }
  return next;
}

uint32_t Autoscaler::Stabilized(double now_s, uint32_t requested, uint32_t desired) {
  // horizontal.go: recommendations older than both windows are dropped; the
  // count moves up to the least one of the up window, down to the most one
  // of the down window (both windows hold the newest, as HPA's do).
  const double keep = std::max(spec_.scale_up_stabilization_s, spec_.scale_down_stabilization_s);
  while (!history_.empty() && history_.front().at_s < now_s - keep) history_.pop_front();
  history_.push_back({now_s, desired});
  uint32_t up = desired, down = desired;
  for (const Recommendation& r : history_) {
    if (r.at_s > now_s - spec_.scale_up_stabilization_s) up = std::min(up, r.replicas);
    if (r.at_s > now_s - spec_.scale_down_stabilization_s) down = std::max(down, r.replicas);
  }
  uint32_t next = requested;
  if (next < up) next = up;
  if (next > down) next = down;
  return next;
}

int64_t Autoscaler::PeriodStart(double now_s, uint32_t requested, double period_s) const {
  // getReplicasChangePerPeriod: the events strictly after the period's start.
  int64_t start = requested;
  for (const ScaleEvent& e : events_) {
    if (e.at_s > now_s - period_s) start -= e.change;
  }
  return start;
}

uint32_t Autoscaler::RateLimited(double now_s, uint32_t requested, uint32_t stabilized) {
  // markScaleEventsOutdated: changes older than every period no longer count.
  double longest = 0;
  for (const auto* policies : {&spec_.scale_up_policies, &spec_.scale_down_policies}) {
    for (const ScalingPolicy& p : *policies) longest = std::max(longest, p.period_s);
  }
  while (!events_.empty() && events_.front().at_s <= now_s - longest) events_.pop_front();
  if (stabilized > requested) {
    return static_cast<uint32_t>(std::min<int64_t>(
        stabilized, std::max<int64_t>(RateLimit(now_s, requested, true), requested)));
  }
  if (stabilized < requested) {
    return static_cast<uint32_t>(std::max<int64_t>(
        stabilized, std::min<int64_t>(RateLimit(now_s, requested, false), requested)));
  }
  return requested;
}

int64_t Autoscaler::RateLimit(double now_s, uint32_t requested, bool up) const {
  const std::vector<ScalingPolicy>& policies =
      up ? spec_.scale_up_policies : spec_.scale_down_policies;
  const ScalingSelect select = up ? spec_.scale_up_select : spec_.scale_down_select;
  if (select == ScalingSelect::kDisabled) return requested;
  // kMax takes the loosest bound, kMin the tightest: the highest count going
  // up is the loosest, the lowest going down.
  const bool highest = (select == ScalingSelect::kMax) == up;
  int64_t limit = highest ? INT64_MIN : INT64_MAX;
  for (const ScalingPolicy& p : policies) {
    const double start = static_cast<double>(PeriodStart(now_s, requested, p.period_s));
    // The percent proposal is rounded up going up, or a small count could
    // never grow; going down it is truncated.
    const double proposed = p.type == ScalingPolicy::Type::kPods ? start + (up ? p.value : -p.value)
                            : up ? std::ceil(start * (1 + p.value / 100))
                                 : std::trunc(start * (1 - p.value / 100));
    limit = highest ? std::max(limit, static_cast<int64_t>(proposed))
                    : std::min(limit, static_cast<int64_t>(proposed));
  }
  return limit;
}

uint32_t Autoscaler::Scheduled(double now_s) const {
  uint32_t replicas = spec_.initial_replicas;
  for (const ReplicaStep& step : spec_.schedule) {
    if (step.at_s <= now_s) replicas = step.replicas;
  }
  return Clamp(replicas);
}

}  // namespace kvroute::sim
