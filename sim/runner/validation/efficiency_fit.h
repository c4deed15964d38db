// Fits a GPU kind's efficiencies (models/gpu.h) to the measured experiments
// run on it: Nelder–Mead over the efficiencies (fractions through a logit,
// times through a logarithm), minimising the mean over the headline metrics
// of the mean absolute log error of the whole-run values (robust, and close
// to the median percentage error the validation reports). Closed-loop TTFT at
// concurrency above 4 is left out (efficiency_fit.cc says why).
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_EFFICIENCY_FIT_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_EFFICIENCY_FIT_H_

#include <ostream>
#include <string>
#include <vector>

#include "models/gpu.h"
#include "sim/runner/validation/validation.h"

namespace kvroute::sim {

struct FitResult {
  models::GpuEfficiency efficiency;
  double loss = 0;
  size_t experiments = 0;
  int evaluations = 0;
};

// The loss of `rows` (see above).
double FitLoss(const std::vector<ValidationRow>& rows);

// Starts from `start`; parameters named in `fixed` keep their start values.
// Progress lines go to `log` if given.
FitResult FitEfficiency(const std::vector<MeasuredExperiment>& experiments,
                        const models::GpuEfficiency& start, const std::vector<std::string>& fixed,
                        const ReplayOptions& options, unsigned jobs, int max_evaluations,
                        std::ostream* log);

// The fitted block as it goes into models/gpus/<gpu>.yaml.
void PrintEfficiencyYaml(std::ostream& out, const models::GpuEfficiency& e,
                         const std::string& fitted_on);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_EFFICIENCY_FIT_H_
