// Runs every (policy, load, seed) point of a scenario, on several threads if
// asked, and derives capacities and summaries. Points are independent and
// deterministic, and results are stored by index, so the output is identical
// whatever the number of threads.
#ifndef KVROUTE_SIM_RUNNER_EXPERIMENT_H_
#define KVROUTE_SIM_RUNNER_EXPERIMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "analysis/sweep_results.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct SweepOptions {
  unsigned jobs = 1;
  // Called after each point finishes, from the thread that ran it, one call
  // at a time: (points done, points in all, the point).
  std::function<void(size_t, size_t, const analysis::PointResult&)> on_point;
};

// Policy-major, then load, then seed: the order of /points.
std::vector<PointSpec> SweepPoints(const Scenario& scenario);

analysis::SweepResults RunSweep(const Scenario& scenario, const SweepOptions& options);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_EXPERIMENT_H_
