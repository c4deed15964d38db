#include "analysis/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kvroute::analysis {
namespace {

// Paired by seed: each seed's capacity is divided by the baseline's capacity
// at the same seed (same requests), then the ratios are summarised.
void AddBaselineRatios(SweepResults* results) {
  if (results->baseline.empty()) return;
  for (SummaryRow& row : results->summary) {
    std::vector<double> ratios;
    for (const CapacityRow& c : results->capacity) {
      if (c.policy != row.policy || c.slo_index != row.slo_index) continue;
      for (const CapacityRow& b : results->capacity) {
        if (b.policy == results->baseline && b.slo_index == c.slo_index && b.seed == c.seed &&
            b.capacity.qps > 0) {
          ratios.push_back(c.capacity.qps / b.capacity.qps);
        }
      }
    }
    if (!ratios.empty()) row.ratio = Summarize(ratios);
  }
}

}  // namespace

void ComputeCapacityAndSummary(double reference_qps, SweepResults* results) {
  results->capacity.clear();
  results->summary.clear();
  // Policies in first-seen order; seeds in first-seen order per policy.
  std::vector<std::string> policies;
  for (const PointResult& p : results->points) {
    if (std::find(policies.begin(), policies.end(), p.policy) == policies.end()) {
      policies.push_back(p.policy);
    }
  }
  for (uint32_t s = 0; s < results->slos.size(); ++s) {
    const Slo& slo = results->slos[s];
    for (const std::string& policy : policies) {
      std::vector<uint64_t> seeds;
      std::map<uint64_t, std::vector<LoadOutcome>> outcomes;
      double hit_sum = 0, value_sum = 0;
      uint32_t reference_points = 0;
      for (const PointResult& p : results->points) {
        if (p.policy != policy) continue;
        if (outcomes.find(p.seed) == outcomes.end()) seeds.push_back(p.seed);
        outcomes[p.seed].push_back(LoadOutcome{p.qps, slo.Met(p.slo_values[s])});
        if (p.qps == reference_qps) {
          hit_sum += p.token_hit_rate;
          value_sum += p.slo_values[s];
          ++reference_points;
        }
      }
      SummaryRow row;
      row.policy = policy;
      row.slo_index = s;
      row.reference_qps = reference_qps;
      std::vector<double> capacities;
      for (uint64_t seed : seeds) {
        Capacity c = SloCapacity(outcomes[seed]);
        results->capacity.push_back(CapacityRow{policy, seed, s, c});
        capacities.push_back(c.qps);
        row.left_censored += c.left_censored ? 1 : 0;
        row.right_censored += c.right_censored ? 1 : 0;
      }
      row.capacity = Summarize(capacities);
      row.token_hit_rate = reference_points ? hit_sum / reference_points : std::nan("");
      row.slo_value = reference_points ? value_sum / reference_points : std::nan("");
      results->summary.push_back(row);
    }
  }
  AddBaselineRatios(results);
}

}  // namespace kvroute::analysis
