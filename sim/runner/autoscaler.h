// How many replicas a deployment's autoscaler asks for (issue 15), decided as
// Kubernetes' Horizontal Pod Autoscaler decides (kubernetes/kubernetes
// @85643c0f):
// - desired = ceil(requested x signal / target), unchanged while
//   |signal / target - 1| <= tolerance (pkg/controller/podautoscaler/
//   replica_calculator.go, GetMetricReplicas / calcPlainMetricReplicas);
// - stabilisation (horizontal.go, stabilizeRecommendationWithBehaviors): every
//   decision's recommendation is kept; the count goes up only to the least
//   recommendation of the last scale_up_stabilization_s, and down only to the
//   most recommendation of the last scale_down_stabilization_s;
// - then clamped to [min_replicas, max_replicas].
// Defaults (sim/runner/scenario.h, AutoscaleSpec): a decision every 15 s
// (--horizontal-pod-autoscaler-sync-period), tolerance 0.1, scale-down
// stabilisation 300 s (pkg/controller/podautoscaler/config/v1alpha1/
// defaults.go), scale-up stabilisation 0 (pkg/apis/autoscaling/v2/defaults.go).
// HPA's rate limits on a scale step (100% or 4 pods per 15 s) are not modelled.
// With signal `schedule` the count is the schedule's at each time.
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
  // (serving and provisioning) and the signal, averaged over the serving
  // replicas, is `signal`. Decisions come in increasing time.
  uint32_t Decide(double now_s, uint32_t requested, double signal);

  // With signal `schedule`: the count the schedule asks for at `now_s`.
  uint32_t Scheduled(double now_s) const;

 private:
  struct Recommendation {
    double at_s;
    uint32_t replicas;
  };
  uint32_t Clamp(double replicas) const;

  AutoscaleSpec spec_;
  uint32_t max_replicas_;
  std::deque<Recommendation> history_;  // within the longer window, oldest first
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_AUTOSCALER_H_
