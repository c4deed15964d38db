#include "analysis/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kvroute::analysis {
namespace {

bool Censored(const Capacity& c) { return c.left_censored || c.right_censored; }

// Paired by seed: each seed's capacity is divided by the baseline's capacity
// at the same seed (same requests), then the ratios are summarised. A seed
// where either capacity is censored has no ratio, only a bound: left out.
void AddBaselineRatios(SweepResults* results) {
  if (results->baseline.empty()) return;
  for (SummaryRow& row : results->summary) {
    std::vector<double> ratios;
    for (const CapacityRow& c : results->capacity) {
      if (c.policy != row.policy || c.slo_index != row.slo_index || Censored(c.capacity)) continue;
      for (const CapacityRow& b : results->capacity) {
        if (b.policy == results->baseline && b.slo_index == c.slo_index && b.seed == c.seed &&
            !Censored(b.capacity) && b.capacity.qps > 0) {
          ratios.push_back(c.capacity.qps / b.capacity.qps);
        }
      }
    }
    if (!ratios.empty()) row.ratio = Summarize(ratios);
  }
}

double Min(double a, double b) { return std::isnan(a) ? b : std::min(a, b); }

}  // namespace

void ComputeCapacityAndSummary(double reference_qps, BisectionPrecision precision,
                               SweepResults* results) {
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
      std::vector<double> lower, upper;
      for (uint64_t seed : seeds) {
        Capacity c = SloCapacity(outcomes[seed]);
        results->capacity.push_back(CapacityRow{policy, seed, s, c});
        ++row.seeds;
        if (c.left_censored) {
          ++row.left_censored;
          row.below_qps = Min(row.below_qps, c.upper_qps);
        } else if (c.right_censored) {
          ++row.right_censored;
          row.at_least_qps = Min(row.at_least_qps, c.qps);
        } else {
          lower.push_back(c.qps);
          upper.push_back(c.upper_qps);
          if (!precision.Resolved(c.qps, c.upper_qps)) row.quantised = true;
        }
      }
      if (!lower.empty()) {
        row.capacity = Summarize(lower);
        row.capacity_upper_mean_qps = Summarize(upper).mean;
      }
      row.token_hit_rate = reference_points ? hit_sum / reference_points : std::nan("");
      row.slo_value = reference_points ? value_sum / reference_points : std::nan("");
      results->summary.push_back(row);
    }
  }
  AddBaselineRatios(results);
}

}  // namespace kvroute::analysis
