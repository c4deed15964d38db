// Validation against measured vLLM runs (DESIGN.md, "Validation"): replays
// every experiment of ../shared/measured and reports predicted against
// measured, the absolute percentage error of each metric and the median per
// metric. `kvroute validation --markdown` writes docs/VALIDATION.md.
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_H_

#include <ostream>
#include <string>
#include <vector>

#include "sim/runner/validation/measured_data.h"
#include "sim/runner/validation/measured_replay.h"

namespace kvroute::sim {

struct ValidationRow {
  MeasuredExperiment experiment;
  std::vector<Prediction> predictions;
};

// Replays `experiments` on `jobs` threads; rows in the experiments' order.
std::vector<ValidationRow> RunValidation(const std::vector<MeasuredExperiment>& experiments,
                                         const ReplayOptions& options, unsigned jobs);

// Whether the efficiency fit uses this value, and why not when it does not
// (an empty reason: fitted). Fitted: whole-run values, except the TTFT of
// closed-loop rows above kFittedTtftConcurrency clients (how the clients fall
// into phase decides it, and it is not recorded) and every value of a row
// whose prefill demand exceeds the GPUs' peaks
// (MeasuredExperiment::PrefillDemandShare).
inline constexpr uint32_t kFittedTtftConcurrency = 4;
// The metrics the validation's targets and the fit are about.
inline constexpr MeasuredMetric kHeadlineMetrics[] = {
    MeasuredMetric::kTtftMean, MeasuredMetric::kTtftP90, MeasuredMetric::kItlMean,
    MeasuredMetric::kE2eMean};
std::string NotFittedBecause(const MeasuredExperiment& e, const MeasuredValue& v);
inline bool FittedValue(const MeasuredExperiment& e, const MeasuredValue& v) {
  return NotFittedBecause(e, v).empty();
}

// The headline metrics: each experiment's whole-run value.
struct MetricSummary {
  MeasuredMetric metric;
  size_t experiments = 0;
  double median_ape = 0;
  double max_ape = 0;
  std::string worst;  // the experiment with max_ape
};
std::vector<MetricSummary> Summarize(const std::vector<ValidationRow>& rows);

void PrintValidation(std::ostream& out, const std::vector<ValidationRow>& rows,
                     const ReplayOptions& options, bool markdown);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_H_
