// `kvroute calibrate`: measures a scenario's per-destination capacity q_cap
// and suggests CacheRoute's warm-slot budget W (seed 003 §3.1 and §5.7: both
// are measured on the deployment, not guessed).
//  - q_cap: the highest load at which ONE replica of the scenario's profile,
//    serving the scenario's whole key mix alone, still meets the SLO; found by
//    doubling, then bisecting to 2% on the scenario's first seed.
//  - W: how many keys' cacheable prefixes fit in one replica's KV pool beside
//    the working set it holds at q_cap (the time-average KV blocks pinned or
//    reserved by running requests, measured in the q_cap run).
#ifndef KVROUTE_SIM_RUNNER_CALIBRATE_H_
#define KVROUTE_SIM_RUNNER_CALIBRATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct CalibrationReport {
  double q_cap = 0;          // req/s
  double first_failing = 0;  // req/s: the bracket's upper end
  uint32_t probes = 0;       // single-replica points simulated
  double prefix_blocks_per_key = 0;
  int64_t kv_blocks = 0;
  int64_t working_set_blocks = 0;
  uint32_t slots_per_replica = 0;       // W
  std::vector<std::string> derivation;  // one line per step, for the user
};

// REQUIRES: slo_index < scenario.slos.size().
CalibrationReport Calibrate(const Scenario& scenario, size_t slo_index);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CALIBRATE_H_
