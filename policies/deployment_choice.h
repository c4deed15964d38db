// The first level of two-level routing across deployments (seed 000): a
// request picks deployment d with probability
//   P_d = w_d · 2^(λ_h·H_d) / Σ_k w_k · 2^(λ_h·H_k),
// w_d its configured weight, H_d the request's prefix hit ratio in d (the
// best replica there), λ_h the cache preference: at λ_h = 10 every 10 points
// of hit ratio double a deployment's odds; λ_h = 0 gives the plain weights.
// The replica inside d is then the scenario's policy's choice. With λ_q > 0
// the deployment's load enters the split too, as the seed asks once waiting
// costs more than keeping the cache (it gives no formula; this is kvroute's):
//   P_d ∝ w_d · 2^(λ_h·H_d − λ_q·Q_d),
// Q_d the requests waiting per serving replica of d: every 1/λ_q of them
// halves the deployment's odds.
#ifndef KVROUTE_POLICIES_DEPLOYMENT_CHOICE_H_
#define KVROUTE_POLICIES_DEPLOYMENT_CHOICE_H_

#include <span>

#include "sim/core/random_stream.h"

namespace kvroute::policies {

// Writes P_d into `probabilities` (same size as `weights`). Deployments with
// weight 0 get 0; if every weight is 0 the result is all 0.
// REQUIRES: weights.size() == hit_ratios.size() == probabilities.size();
// weights >= 0; hit ratios in [0, 1].
// `waiting`: Q_d, used when lambda_q > 0 (then the same size as `weights`).
void DeploymentProbabilities(std::span<const double> weights, std::span<const double> hit_ratios,
                             double lambda_h, std::span<double> probabilities,
                             std::span<const double> waiting = {}, double lambda_q = 0);

// Samples a deployment from DeploymentProbabilities with one uniform draw.
// Returns weights.size() when every weight is 0. `scratch` has weights.size().
size_t ChooseDeployment(std::span<const double> weights, std::span<const double> hit_ratios,
                        double lambda_h, sim::RandomStream& rng, std::span<double> scratch,
                        std::span<const double> waiting = {}, double lambda_q = 0);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_DEPLOYMENT_CHOICE_H_
