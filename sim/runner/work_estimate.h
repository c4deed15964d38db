// An estimate, before anything runs, of what one point of a scenario costs:
// simulated requests, events (the work) and memory, with the scenario key that
// drives each term. Commands refuse a scenario whose point would exceed the
// limits below, or the machine's available memory (/proc/meminfo), naming the
// key and the estimate, unless the user passes --ignore-limits. The figures
// are coarse (within a small factor on the shipped scenarios) by design: they
// exist to stop a mistyped 1e12 before it runs for hours, not to plan.
#ifndef KVROUTE_SIM_RUNNER_WORK_ESTIMATE_H_
#define KVROUTE_SIM_RUNNER_WORK_ESTIMATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

// Above this a point runs for hours of one core (the engine simulates a few
// hundred thousand to a few million events per wall-second per core).
inline constexpr double kMaxEventsPerPoint = 1e10;

struct WorkTerm {
  std::string key;          // the scenario key that drives it, e.g. "sweep.qps"
  std::string description;  // how it was estimated
  double events = 0;
  double bytes = 0;
};

struct WorkEstimate {
  double requests = 0;  // simulated requests of the costliest point
  double events = 0;
  double bytes = 0;  // memory of one point
  std::vector<WorkTerm> terms;

  const WorkTerm& CostliestInEvents() const;
  const WorkTerm& CostliestInMemory() const;
  // "about 1.2e6 requests, 8.0e6 events and 42 MiB per point"
  std::string Summary() const;
};

// The costliest point of the sweep: the highest load, the first seed.
// `qps` overrides the load (a single point).
WorkEstimate EstimatePointWork(const Scenario& scenario, std::optional<double> qps = {});

// Bytes the machine can give (MemAvailable in /proc/meminfo); nothing when unknown.
std::optional<double> AvailableMemoryBytes();

// Throws std::runtime_error naming the key that drives the cost when a point
// would exceed kMaxEventsPerPoint, or `parallel_points` points together would
// exceed the available memory. The message says how to override.
void CheckWorkLimits(const Scenario& scenario, const WorkEstimate& estimate,
                     unsigned parallel_points);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_WORK_ESTIMATE_H_
