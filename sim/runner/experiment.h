// Runs a scenario's sweep: every (policy, load, seed) point of the grid, then
// bisection rounds that refine each capacity between the last passing and the
// first failing load (Scenario::precision_qps), and derives capacities and
// summaries. Points run on a PointExecutor (threads or MPI ranks); results are
// stored by index, never by finishing order, so the output is identical
// whatever runs them.
#ifndef KVROUTE_SIM_RUNNER_EXPERIMENT_H_
#define KVROUTE_SIM_RUNNER_EXPERIMENT_H_

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "analysis/sweep_results.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/point_executor.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct SweepOptions {
  // Points finished by an earlier, interrupted run of the same scenario: they
  // are taken as they are, not run again.
  std::vector<analysis::PointResult> finished;
  // Called on the calling thread after each point that ran: (points done,
  // points known so far, the point). Bisection rounds add to the known points.
  std::function<void(size_t, size_t, const analysis::PointResult&)> on_point;
};

// The grid: policy-major, then load, then seed — the order of /points.
std::vector<PointSpec> SweepPoints(const Scenario& scenario);

// The next bisection round after `points` (every point so far): for each
// policy, seed and SLO whose capacity is bracketed by a passing and a failing
// load more than scenario.precision_qps apart, their midpoint; policy-major,
// then load, then seed, without duplicates. Empty when nothing is left to
// refine or precision_qps is 0. Censored capacities are not refined.
std::vector<PointSpec> RefinementPoints(const Scenario& scenario,
                                        std::span<const analysis::PointResult> points);

analysis::SweepResults RunSweep(const Scenario& scenario, PointExecutor& executor,
                                const SweepOptions& options);

// Identifies a scenario as run — its YAML with overrides applied, the seeds
// and policies actually swept, and the kvroute version and git revision that
// simulate it — as 16 hex digits. --resume compares it.
std::string ScenarioHash(const Scenario& scenario);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_EXPERIMENT_H_
