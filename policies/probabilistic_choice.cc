#include "policies/probabilistic_choice.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kvroute::policies {

void ExponentialDecayProbabilities(std::span<const double> costs, double delta,
                                   std::span<double> probabilities) {
  assert(delta > 0 && probabilities.size() == costs.size());
  double minimum = std::numeric_limits<double>::infinity();
  for (double c : costs) minimum = std::min(minimum, c);
  assert(std::isfinite(minimum));
  double sum = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    probabilities[i] = std::isfinite(costs[i]) ? std::exp2(-(costs[i] - minimum) / delta) : 0;
    sum += probabilities[i];
  }
  for (double& p : probabilities) p /= sum;  // sum >= 1: the minimum contributes 1
}

uint32_t SampleIndex(std::span<const double> probabilities, sim::RandomStream& rng) {
  double u = rng.Uniform();
  uint32_t last = 0;
  for (uint32_t i = 0; i < probabilities.size(); ++i) {
    if (probabilities[i] <= 0) continue;
    last = i;
    if (u < probabilities[i]) return i;
    u -= probabilities[i];
  }
  return last;  // rounding left u just above the total
}

uint32_t FlexLbCandidates(std::span<const FlexLbEndpoint> endpoints, const FlexLbConfig& config,
                          std::span<uint8_t> candidates) {
  assert(candidates.size() == endpoints.size());
  double pending_sum = 0, wait_sum = 0, available = 0;
  for (const FlexLbEndpoint& e : endpoints) {
    if (!e.available) continue;
    pending_sum += e.pending;
    wait_sum += e.wait_ms;
    ++available;
  }
  assert(available > 0);
  const double pending_limit = config.pending_outlier * pending_sum / available;
  const double wait_limit = config.wait_outlier * wait_sum / available;

  double s_min = std::numeric_limits<double>::infinity();
  size_t least_wait = endpoints.size();
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const FlexLbEndpoint& e = endpoints[i];
    candidates[i] = 0;
    if (!e.available) continue;
    if (least_wait == endpoints.size() || e.wait_ms < endpoints[least_wait].wait_ms) {
      least_wait = i;
    }
    if (e.pending > pending_limit || e.wait_ms > wait_limit) continue;  // outlier
    candidates[i] = 1;
    s_min = std::min(s_min, e.cost_ms);
  }
  if (!std::isfinite(s_min)) {
    candidates[least_wait] = 1;
    return 1;
  }
  const double tolerance =
      std::max(std::floor(s_min * config.relative_tolerance), config.minimum_tolerance_ms);
  uint32_t count = 0;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (candidates[i] && endpoints[i].cost_ms > s_min + tolerance) candidates[i] = 0;
    count += candidates[i];
  }
  return count;
}

}  // namespace kvroute::policies
