#include "sim/runner/autoscaler.h"

#include <algorithm>
#include <cmath>

namespace kvroute::sim {

Autoscaler::Autoscaler(const AutoscaleSpec& spec, uint32_t max_replicas)
    : spec_(spec), max_replicas_(max_replicas) {}

uint32_t Autoscaler::Clamp(double replicas) const {
  return static_cast<uint32_t>(std::clamp(replicas, static_cast<double>(spec_.min_replicas),
                                          static_cast<double>(max_replicas_)));
}

uint32_t Autoscaler::Decide(double now_s, uint32_t requested, double signal) {
  // replica_calculator.go: within the tolerance nothing changes; a signal
  // that cannot be read (no serving replica) changes nothing either.
  uint32_t desired = requested;
  if (std::isfinite(signal)) {
    const double ratio = signal / spec_.target;
    if (std::abs(ratio - 1) > spec_.tolerance) {
      desired = Clamp(std::ceil(ratio * requested));
    }
  }
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
  return Clamp(next);
}

uint32_t Autoscaler::Scheduled(double now_s) const {
  uint32_t replicas = spec_.initial_replicas;
  for (const ReplicaStep& step : spec_.schedule) {
    if (step.at_s <= now_s) replicas = step.replicas;
  }
  return Clamp(replicas);
}

}  // namespace kvroute::sim
