// Simulates one (policy, load, seed) point end to end: the workload's arrivals
// go through the policy to the replicas, whose iterations drive time forward,
// and the metrics collector streams what happens (DESIGN.md, "Cluster and
// router"). Arrivals stop at duration_s; in-flight work may finish until
// duration_s + drain_s, and what is still unfinished then is counted as such.
#ifndef KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_H_
#define KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_H_

#include <cstdint>

#include "analysis/point_metrics.h"
#include "analysis/request_record.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct PointSpec {
  size_t policy_index = 0;  // into scenario.policies
  double qps = 0;
  uint64_t seed = 0;
  // A request queued behind more than this many keeps its segments, not its
  // block hashes, until they are read again (RequestHashes::Forget). Only
  // memory and time depend on it; tests set it to compare.
  uint32_t forget_hashes_behind = 32;
};

// Deterministic: the same scenario and spec give a bit-identical result.
// `recorder`, if given, receives a record of every request.
analysis::PointResult RunPoint(const Scenario& scenario, const PointSpec& spec,
                               analysis::RequestRecorder* recorder = nullptr);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLUSTER_SIMULATION_H_
