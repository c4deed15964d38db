// Two-level routing on scenarios/canary.yaml (seed 000): the deployment
// choice P_d ~ w_d * 2^(lambda_h * H_d) and the per-deployment series.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

// scenarios/canary.yaml (seed 000): between 60 s and 150 s the weights are
// old:new = 1:9 at lambda_h = 10.
class CanaryTest : public ::testing::Test {
 protected:
  analysis::PointResult Run(const std::vector<std::string>& overrides = {}) {
    scenario_ = LoadScenarioFile("scenarios/canary.yaml", overrides);
    return RunPoint(scenario_, PointSpec{0, 60, 1});
  }
  // Sums `field` over the new deployment's buckets in [from_s, to_s).
  template <typename Field>
  uint64_t New(const analysis::PointResult& r, double from_s, double to_s, Field field) {
    uint64_t sum = 0;
    for (const analysis::DeploymentSample& s : r.deployment_series) {
      if (s.deployment == 1 && s.start_s >= from_s && s.start_s < to_s) sum += field(s);
    }
    return sum;
  }
  Scenario scenario_;
};

// A prompt wholly cached in the old deployment and not at all in the new one
// goes there with probability 9/(2^10 + 9): binomial, within 4 sigma.
TEST_F(CanaryTest, ColdDeploymentGetsTheSeedsShareOfHitPrompts) {
  analysis::PointResult r = Run();
  ASSERT_EQ(r.deployment_names, (std::vector<std::string>{"old", "new"}));
  auto n = New(r, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere; });
  auto taken = New(r, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere_taken; });
  const double p = 9.0 / (1024 + 9), sigma = std::sqrt(n * p * (1 - p));
  ASSERT_GT(n, 1000u);
  EXPECT_NEAR(static_cast<double>(taken), n * p, 4 * sigma);
  // Before the shift the new deployment has weight 0; after 150 s it has all.
  EXPECT_EQ(New(r, 0, 60, [](const auto& s) { return s.requests; }), 0u);
  uint64_t late = New(r, 150, 240, [](const auto& s) { return s.requests; });
  EXPECT_EQ(late, New(r, 150, 240, [](const auto& s) { return s.hit_elsewhere_taken; }) +
                      (late - New(r, 150, 240, [](const auto& s) { return s.hit_elsewhere; })));
}

// Its share of prompts the old deployment holds starts low and rises as it warms.
TEST_F(CanaryTest, ShareOfHitPromptsRisesAsTheNewDeploymentWarms) {
  analysis::PointResult r = Run();
  auto share = [&](double from_s, double to_s) {
    return static_cast<double>(
               New(r, from_s, to_s, [](const auto& s) { return s.hit_elsewhere_taken; })) /
           static_cast<double>(New(r, from_s, to_s, [](const auto& s) { return s.hit_elsewhere; }));
  };
  EXPECT_LT(share(60, 70), 0.1);
  EXPECT_GT(share(120, 150), 3 * share(60, 70));
}

// lambda_h = 0: the plain weights, 9 of 10 requests to the new deployment.
TEST_F(CanaryTest, NoCachePreferenceFollowsTheWeights) {
  analysis::PointResult r = Run({"cluster.lambda_h=0"});
  uint64_t to_new = New(r, 60, 150, [](const auto& s) { return s.requests; });
  uint64_t all = to_new;
  for (const analysis::DeploymentSample& s : r.deployment_series) {
    if (s.deployment == 0 && s.start_s >= 60 && s.start_s < 150) all += s.requests;
  }
  const double sigma = std::sqrt(all * 0.9 * 0.1);
  EXPECT_NEAR(static_cast<double>(to_new), all * 0.9, 4 * sigma);
}

// The new deployment's share of all requests in [from_s, to_s).
double NewShare(const analysis::PointResult& r, double from_s, double to_s) {
  uint64_t to_new = 0, all = 0;
  for (const analysis::DeploymentSample& s : r.deployment_series) {
    if (s.start_s < from_s || s.start_s >= to_s) continue;
    all += s.requests;
    if (s.deployment == 1) to_new += s.requests;
  }
  return static_cast<double>(to_new) / static_cast<double>(all);
}

// Without evictions or failures, what the router sent to a deployment is what
// it caches (whole-block prompts, short queues): the router's estimate of H_d
// gives seed 000's shift as the exact caches do.
TEST_F(CanaryTest, RouterEstimateOfTheHitRatioFollowsTheSeedLikeTheExactOne) {
  analysis::PointResult exact = Run(), router = Run({"cluster.deployment_hit_estimate=router"});
  EXPECT_NEAR(NewShare(router, 60, 150), NewShare(exact, 60, 150), 0.01);
  auto n = New(router, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere; });
  auto taken = New(router, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere_taken; });
  const double p = 9.0 / (1024 + 9), sigma = std::sqrt(n * p * (1 - p));
  ASSERT_GT(n, 1000u);
  EXPECT_NEAR(static_cast<double>(taken), n * p, 4 * sigma);
}

// Every old replica fails at 100 s and is back, empty, half a second later:
// an eviction the router cannot see. The exact caches show the old deployment
// cold, so prompts the new one has warmed go there at 2^10:1 on top of 9:1;
// the router still credits the old one with everything it sent there and
// keeps sending those prompts back, cold.
TEST_F(CanaryTest, RouterEstimateMissesACacheLostInAFailure) {
  std::string failures = "failures={schedule: [";
  for (int r = 0; r < 4; ++r) {
    failures += std::string(r ? ", " : "") + "{replica: " + std::to_string(r) +
                ", at_s: 100, recover_after_s: 0.5}";
  }
  failures += "]}";
  analysis::PointResult exact = Run({failures});
  analysis::PointResult router = Run({failures, "cluster.deployment_hit_estimate=router"});
  EXPECT_GT(NewShare(exact, 110, 150), 0.9);
  EXPECT_LT(NewShare(router, 110, 150), 0.6);
  EXPECT_LT(router.token_hit_rate, exact.token_hit_rate);
}

TEST_F(CanaryTest, BitIdenticalAcrossRuns) {
  analysis::PointResult a = Run(), b = Run();
  EXPECT_EQ(analysis::PointToJson(a, scenario_.slos), analysis::PointToJson(b, scenario_.slos));
}

}  // namespace
}  // namespace kvroute::sim
