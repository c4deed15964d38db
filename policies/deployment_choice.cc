#include "policies/deployment_choice.h"

#include <algorithm>
#include <cmath>

namespace kvroute::policies {

void DeploymentProbabilities(std::span<const double> weights, std::span<const double> hit_ratios,
                             double lambda_h, std::span<double> probabilities,
                             std::span<const double> waiting, double lambda_q) {
  // Every exponent is taken relative to the largest among the deployments
  // with a weight, so that large λ_h or λ_q can neither overflow nor send
  // every probability to 0. Without λ_q the largest is λ_h·max H, as written.
  auto exponent = [&](size_t d) {
    return lambda_q > 0 ? lambda_h * hit_ratios[d] - lambda_q * waiting[d] : hit_ratios[d];
  };
  double top = lambda_q > 0 ? -INFINITY : 0;
  for (size_t d = 0; d < weights.size(); ++d) {
    if (weights[d] > 0) top = std::max(top, exponent(d));
  }
  double sum = 0;
  for (size_t d = 0; d < weights.size(); ++d) {
    const double relative = lambda_q > 0 ? exponent(d) - top : lambda_h * (hit_ratios[d] - top);
    probabilities[d] = weights[d] > 0 ? weights[d] * std::exp2(relative) : 0;
    sum += probabilities[d];
  }
  for (double& p : probabilities) p = sum > 0 ? p / sum : 0;
}

size_t ChooseDeployment(std::span<const double> weights, std::span<const double> hit_ratios,
                        double lambda_h, sim::RandomStream& rng, std::span<double> scratch,
                        std::span<const double> waiting, double lambda_q) {
  DeploymentProbabilities(weights, hit_ratios, lambda_h, scratch, waiting, lambda_q);
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
