// Deployment choice P_d ∝ w_d·2^(λ_h·H_d) against seed 000's worked numbers.
#include "policies/deployment_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/policies/chi_square.h"

namespace kvroute::policies {
namespace {

std::vector<double> Probabilities(std::vector<double> w, std::vector<double> h, double lambda) {
  std::vector<double> p(w.size());
  DeploymentProbabilities(w, h, lambda, p);
  return p;
}

// Seed 000: w_A:w_B = 1:9, λ_h = 10, A fully hit, B cold: P_B = 9/(2^10 + 9).
TEST(DeploymentChoiceTest, SeedWorkedExample) {
  std::vector<double> p = Probabilities({1, 9}, {1, 0}, 10);
  EXPECT_DOUBLE_EQ(p[1], 9.0 / (1024 + 9));
  EXPECT_NEAR(p[1], 0.0087, 5e-5);
  EXPECT_DOUBLE_EQ(p[0], 1024.0 / (1024 + 9));
}

// At λ_h = 10, ten points of hit ratio double the odds.
TEST(DeploymentChoiceTest, TenPointsOfHitRatioDoubleTheOdds) {
  std::vector<double> p = Probabilities({1, 1}, {0.6, 0.5}, 10);
  EXPECT_NEAR(p[0] / p[1], 2.0, 1e-12);
}

TEST(DeploymentChoiceTest, ZeroPreferenceGivesPlainWeights) {
  std::vector<double> p = Probabilities({1, 3, 0, 4}, {1, 0, 1, 0.5}, 0);
  EXPECT_EQ(p, (std::vector<double>{0.125, 0.375, 0, 0.5}));
}

// With λ_q the waiting requests per replica enter the odds: A fully hit but
// with 4 waiting per replica, at λ_q = 1, has its odds cut by 2^4, so
// P_B = 9 / (2^(10 - 4) + 9).
TEST(DeploymentChoiceTest, WaitingRequestsCutADeploymentsOdds) {
  std::vector<double> w{1, 9}, h{1, 0}, q{4, 0}, p(2);
  DeploymentProbabilities(w, h, 10, p, q, 1.0);
  EXPECT_DOUBLE_EQ(p[1], 9.0 / (64 + 9));
  EXPECT_DOUBLE_EQ(p[0] + p[1], 1.0);
  // Without λ_q the waiting requests change nothing, bit for bit.
  std::vector<double> without(2);
  DeploymentProbabilities(w, h, 10, without, q, 0.0);
  EXPECT_EQ(without, Probabilities(w, h, 10));
  // Every 1/λ_q waiting requests halve the odds, whatever the hit ratios.
  const std::vector<double> even{1, 1}, half{0.5, 0.5}, two_on_b{0, 2};
  DeploymentProbabilities(even, half, 10, p, two_on_b, 0.5);
  EXPECT_NEAR(p[0] / p[1], 2.0, 1e-12);
}

TEST(DeploymentChoiceTest, LargeLoadPreferenceNeitherOverflowsNorEmpties) {
  // The hit term favours A by 10^4 and the load term B by 10^8: B's odds win,
  // and neither underflows to a split with no deployment.
  std::vector<double> w{1, 1}, h{1, 0}, q{1e4, 0}, p(2);
  DeploymentProbabilities(w, h, 1e4, p, q, 1e4);
  EXPECT_DOUBLE_EQ(p[1], 1.0);
  EXPECT_DOUBLE_EQ(p[0], 0.0);
}

TEST(DeploymentChoiceTest, LargePreferenceDoesNotOverflow) {
  std::vector<double> p = Probabilities({1, 1}, {1, 0}, 5000);
  EXPECT_DOUBLE_EQ(p[0], 1);
  EXPECT_EQ(p[1], 0);
}

TEST(DeploymentChoiceTest, AllZeroWeightsChooseNothing) {
  sim::RandomStream rng(1, "test.deployment");
  std::vector<double> w{0, 0}, h{1, 0}, scratch(2);
  EXPECT_EQ(ChooseDeployment(w, h, 10, rng, scratch), 2u);
}

// Sampled choices follow P_d (chi-square at 0.001), here 1:2:5 weights with
// hit ratios 0.5, 0.2, 0 at λ_h = 4.
TEST(DeploymentChoiceTest, SampledChoicesFollowTheProbabilities) {
  std::vector<double> w{1, 2, 5}, h{0.5, 0.2, 0}, scratch(3);
  std::vector<double> p = Probabilities(w, h, 4);
  sim::RandomStream rng(3, "test.deployment");
  std::vector<uint64_t> counts(3, 0);
  for (int i = 0; i < 30000; ++i) ++counts[ChooseDeployment(w, h, 4, rng, scratch)];
  EXPECT_TRUE(FitsProbabilities(counts, p));
  // The seed's example: about 0.87% of 40000 cold-B choices, ±4 sigma.
  std::vector<double> w2{1, 9}, h2{1, 0}, s2(2);
  uint64_t to_b = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) to_b += ChooseDeployment(w2, h2, 10, rng, s2) == 1;
  double pb = 9.0 / 1033, sigma = std::sqrt(n * pb * (1 - pb));
  EXPECT_NEAR(static_cast<double>(to_b), n * pb, 4 * sigma);
}

}  // namespace
}  // namespace kvroute::policies
