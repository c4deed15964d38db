// Replays one measured experiment through the simulator, as measured/README.md
// says it ran, and predicts every metric that was measured.
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_

#include <cstdint>
#include <vector>

#include "sim/runner/validation/measured_data.h"

namespace kvroute::sim {

struct ReplayOptions {
  // Load stages run this share of their measured duration (and count) at the
  // measured rate: the means are steady-state quantities, and fitting
  // replays every experiment many times.
  double stage_scale = 1;
  // Closed loop: each client sends this many requests; the first
  // `warmup_rounds` and last `drain_rounds` per client are not measured
  // (warm-up and drain, measured/README.md step 3).
  uint32_t rounds = 8;
  uint32_t warmup_rounds = 2;
  uint32_t drain_rounds = 2;
  uint64_t seed = 1;
  double client_turnaround_s = 0;  // closed loop: uniform on [0, 2x) between requests
  bool ramp = true;
};

struct Prediction {
  MeasuredValue measured;
  double predicted_ms = 0;
  double ape() const;  // |predicted − measured| / measured × 100
};

// Every measured value of `experiment` with kvroute's prediction, in order.
std::vector<Prediction> ReplayExperiment(const MeasuredExperiment& experiment,
                                         const ReplayOptions& options = {});

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_
