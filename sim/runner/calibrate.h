// `kvroute calibrate`: measures a scenario's per-destination capacity q_cap
// and suggests CacheRoute's warm-slot budget W (seed 003 §3.1 and §5.7: both
// are measured on the deployment, not guessed).
//  - q_cap: the highest load at which ONE replica of the scenario's profile,
//    serving the scenario's whole key mix alone, still meets the SLO; found by
//    doubling, then bisecting to 2%.
//  - W: how many keys' cacheable prefixes fit in one replica's KV pool beside
//    the working set it holds at q_cap (the time-average KV blocks pinned or
//    reserved by running requests, measured in the q_cap run).
// Both are measured at each of the scenario's paired seeds and the lower
// median of each is taken: where a replica's knee is where its running
// requests fill its KV pool, W is the small difference of two large numbers
// and one seed's value can be anything from 0 to the pool's worth
// (docs/REPRODUCING.md, "The calibration rule"); the lower of the two middle
// values, for an even count, errs on the side §5.7 asks for (fewer warm slots,
// a lower per-destination cap).
#ifndef KVROUTE_SIM_RUNNER_CALIBRATE_H_
#define KVROUTE_SIM_RUNNER_CALIBRATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

// What one seed measures.
struct SeedCalibration {
  uint64_t seed = 0;
  double q_cap = 0;          // req/s
  double first_failing = 0;  // req/s: the bracket's upper end
  int64_t working_set_blocks = 0;
  double in_flight = 0;            // requests in the system at q_cap, on average
  uint32_t slots_per_replica = 0;  // W
};

struct CalibrationReport {
  std::vector<SeedCalibration> seeds;  // in the scenario's seed order
  double q_cap = 0;                    // the seeds' lower median, req/s
  uint32_t slots_per_replica = 0;      // W: the seeds' lower median
  uint32_t probes = 0;                 // single-replica points simulated
  double prefix_blocks_per_key = 0;
  int64_t kv_blocks = 0;
  std::vector<std::string> derivation;  // one line per step, for the user
};

// REQUIRES: slo_index < scenario.slos.size().
CalibrationReport Calibrate(const Scenario& scenario, size_t slo_index);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CALIBRATE_H_
