// Everything a sweep produced: its points, each (policy, seed, SLO) capacity
// and each (policy, SLO) summary over seeds (DESIGN.md, "Output").
#ifndef KVROUTE_ANALYSIS_SWEEP_RESULTS_H_
#define KVROUTE_ANALYSIS_SWEEP_RESULTS_H_

#include <cmath>
#include <string>
#include <vector>

#include "analysis/capacity.h"
#include "analysis/point_metrics.h"
#include "analysis/slo.h"

namespace kvroute::analysis {

struct CapacityRow {
  std::string policy;
  uint64_t seed = 0;
  uint32_t slo_index = 0;
  Capacity capacity;
};

struct SummaryRow {
  std::string policy;
  uint32_t slo_index = 0;
  SeedStatistics capacity;
  uint32_t left_censored = 0;   // seeds
  uint32_t right_censored = 0;  // seeds
  double reference_qps = 0;     // the common load of the next two columns
  double token_hit_rate = 0;    // mean over seeds at reference_qps
  double slo_value = 0;         // mean over seeds of the SLO metric at reference_qps
  // Capacity / the baseline policy's capacity at the same seed, over the seeds
  // where the baseline's capacity is positive; n = 0 without a baseline.
  SeedStatistics ratio{.n = 0, .mean = NAN, .sd = NAN, .ci_low = NAN, .ci_high = NAN};
};

struct SweepResults {
  std::vector<Slo> slos;
  std::string baseline;             // the policy capacities are compared with; empty: none
  std::vector<PointResult> points;  // policy-major, then load, then seed
  std::vector<CapacityRow> capacity;
  std::vector<SummaryRow> summary;
};

// Derives `capacity` and `summary` from `points`. `reference_qps` must be one
// of the grid loads.
void ComputeCapacityAndSummary(double reference_qps, SweepResults* results);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_SWEEP_RESULTS_H_
