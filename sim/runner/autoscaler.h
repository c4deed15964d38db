// How many replicas a deployment's autoscaler asks for (issue 15), decided as
// Kubernetes' Horizontal Pod Autoscaler decides (kubernetes/kubernetes
// @85643c0f):
// - desired = ceil(ready x signal / target), unchanged while
//   |signal / target - 1| <= tolerance (pkg/controller/podautoscaler/
//   replica_calculator.go, calcPlainMetricReplicas for the per-replica
//   signals, GetExternalMetricReplicas for the TTFT quantile), where ready
//   counts the replicas serving; a per-replica signal's scale-up that the
//   replicas still provisioning (read as 0) would already cover changes
//   nothing;
// - stabilisation (horizontal.go, stabilizeRecommendationWithBehaviors): every
//   decision's recommendation is kept; the count goes up only to the least
//   recommendation of the last scale_up_stabilization_s, and down only to the
//   most recommendation of the last scale_down_stabilization_s;
// - then limited by the rate policies (convertDesiredReplicasWithBehaviorRate,
//   calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors):
//   each policy bounds the count by the count at the start of its period
//   (now less the changes this scaler made in the last period_s) plus `value`
//   pods or times (1 + value/100), rounded up (down: minus, or times
//   (1 - value/100), truncated); selectPolicy takes the loosest (max), the
//   tightest (min) or no change (disabled); a limit never reverses the
//   direction;
// - then clamped to [min_replicas, max_replicas].
// Defaults (sim/runner/scenario.h, AutoscaleSpec): a decision every 15 s
// (--horizontal-pod-autoscaler-sync-period), tolerance 0.1, scale-down
// stabilisation 300 s (pkg/controller/podautoscaler/config/v1alpha1/
// defaults.go), scale-up stabilisation 0 and the rate policies up 4 pods or
// 100% per 15 s, down 100% per 15 s (pkg/apis/autoscaling/v2/defaults.go).
// With signal `schedule` the count is the schedule's at each time, unlimited.
#ifndef KVROUTE_SIM_RUNNER_AUTOSCALER_H_
#define KVROUTE_SIM_RUNNER_AUTOSCALER_H_

#include <cstdint>
#include <deque>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

class Autoscaler {
 public:
  // REQUIRES: spec as the scenario loader checks it (min <= initial <= max).
  Autoscaler(const AutoscaleSpec& spec, uint32_t max_replicas);

  uint32_t initial() const { return spec_.initial_replicas; }

  // The replicas to ask for at `now_s`, when `requested` are asked for now
  // (serving, provisioning and failed), `ready` of them serve and the
  // signal, averaged over those (or deployment-wide for the TTFT), is
  // `signal`. Decisions come in increasing time.
  uint32_t Decide(double now_s, uint32_t requested, uint32_t ready, double signal);
  // The same when every replica asked for serves.
  uint32_t Decide(double now_s, uint32_t requested, double signal) {
    return Decide(now_s, requested, requested, signal);
  }

  // With signal `schedule`: the count the schedule asks for at `now_s`.
  uint32_t Scheduled(double now_s) const;

 private:
  struct Recommendation {
    double at_s;
    uint32_t replicas;
  };
  struct ScaleEvent {
    double at_s;
    int32_t change;  // > 0 added, < 0 removed
  };
  uint32_t Clamp(double replicas) const;
  // HPA's recommendation before stabilisation and rate limits.
  uint32_t Desired(uint32_t requested, uint32_t ready, double signal) const;
  uint32_t Stabilized(double now_s, uint32_t requested, uint32_t desired);
  uint32_t RateLimited(double now_s, uint32_t requested, uint32_t stabilized);
  // The most (`up`) or fewest replicas the rate policies allow now.
  int64_t RateLimit(double now_s, uint32_t requested, bool up) const;
  // The count at the start of a policy's period: `requested` less the changes
  // made after now_s - period_s.
  int64_t PeriodStart(double now_s, uint32_t requested, double period_s) const;

  AutoscaleSpec spec_;
  uint32_t max_replicas_;
  std::deque<Recommendation> history_;  // within the longer window, oldest first
  std::deque<ScaleEvent> events_;       // within the longest policy period, oldest first
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_AUTOSCALER_H_
