// Replays one measured experiment through the simulator, as measured/README.md
// says it ran, and predicts every metric that was measured.
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/runner/validation/measured_data.h"

namespace kvroute::sim {

struct ReplayOptions {
  // Load stages run this share of their measured duration (and count) at the
  // measured rate: the means are steady-state quantities, and fitting
  // replays every experiment many times.
  double stage_scale = 1;
  uint64_t seed = 1;
};

struct Prediction {
  MeasuredValue measured;
  double predicted_ms = 0;
  // Closed-loop TTFT of clients started out of phase: the same clients
  // started together, in phase (the other bound of what their unrecorded
  // phases allow); NaN otherwise.
  double in_phase_ms = std::nan("");
  double ape() const;  // |predicted − measured| / measured × 100
};

// Every measured value of `experiment` with kvroute's prediction, in order.
std::vector<Prediction> ReplayExperiment(const MeasuredExperiment& experiment,
                                         const ReplayOptions& options = {});

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_REPLAY_H_
