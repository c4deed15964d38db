#include "policies/deployment_choice.h"

#include <algorithm>
#include <cmath>

namespace kvroute::policies {

void DeploymentProbabilities(std::span<const double> weights, std::span<const double> hit_ratios,
                             double lambda_h, std::span<double> probabilities) {
  // Scaled by 2^(-λ_h·max H) so that large λ_h cannot overflow.
  double top = 0;
  for (size_t d = 0; d < weights.size(); ++d) {
    if (weights[d] > 0) top = std::max(top, hit_ratios[d]);
  }
  double sum = 0;
  for (size_t d = 0; d < weights.size(); ++d) {
    probabilities[d] =
        weights[d] > 0 ? weights[d] * std::exp2(lambda_h * (hit_ratios[d] - top)) : 0;
    sum += probabilities[d];
  }
  for (double& p : probabilities) p = sum > 0 ? p / sum : 0;
}

size_t ChooseDeployment(std::span<const double> weights, std::span<const double> hit_ratios,
                        double lambda_h, sim::RandomStream& rng, std::span<double> scratch) {
  DeploymentProbabilities(weights, hit_ratios, lambda_h, scratch);
  size_t last = weights.size();
  for (size_t d = 0; d < weights.size(); ++d) {
    if (scratch[d] > 0) last = d;
  }
  if (last == weights.size()) return last;
  double u = rng.Uniform(), cumulative = 0;
  for (size_t d = 0; d < last; ++d) {
    cumulative += scratch[d];
    if (u < cumulative) return d;
  }
  return last;  // rounding: the remaining mass belongs to the last candidate
}

}  // namespace kvroute::policies
