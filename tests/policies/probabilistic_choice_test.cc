#include "policies/probabilistic_choice.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/policies/chi_square.h"

namespace kvroute::policies {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> Decay(std::vector<double> costs, double delta) {
  std::vector<double> p(costs.size());
  ExponentialDecayProbabilities(costs, delta, p);
  return p;
}

// Seed 000: Δ = 20 ms, two instances 20 ms apart -> 2/3 and 1/3.
TEST(ExponentialDecayTest, TwentyMillisecondsApartGivesTwoThirds) {
  auto p = Decay({100, 120}, 20);
  EXPECT_DOUBLE_EQ(p[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(p[1], 1.0 / 3);
}

// Seed 000: 40 ms apart with Δ = 20 ms -> 80% and 20%.
TEST(ExponentialDecayTest, FortyMillisecondsApartGivesEightyTwenty) {
  auto p = Decay({100, 140}, 20);
  EXPECT_DOUBLE_EQ(p[0], 0.8);
  EXPECT_DOUBLE_EQ(p[1], 0.2);
}

TEST(ExponentialDecayTest, EqualCostsAreUniformAndExcludedGetNothing) {
  auto p = Decay({5, kInf, 5, 5}, 20);
  EXPECT_DOUBLE_EQ(p[0], 1.0 / 3);
  EXPECT_EQ(p[1], 0);
  EXPECT_DOUBLE_EQ(p[3], 1.0 / 3);
}

TEST(ExponentialDecayTest, HugeCostsDoNotUnderflow) {
  auto p = Decay({1e9, 1e9 + 20}, 20);
  EXPECT_DOUBLE_EQ(p[0], 2.0 / 3);
}

TEST(SampleIndexTest, FrequenciesMatchProbabilities) {
  std::vector<double> p = Decay({0, 10, 20, 40, kInf, 60}, 20);
  sim::RandomStream rng(11, "test.sample");
  std::vector<uint64_t> counts(p.size(), 0);
  for (int i = 0; i < 40000; ++i) ++counts[SampleIndex(p, rng)];
  EXPECT_TRUE(FitsProbabilities(counts, p));
  // The check has power: the same counts do not fit uniform probabilities.
  std::vector<double> uniform = {0.2, 0.2, 0.2, 0.2, 0, 0.2};
  EXPECT_FALSE(FitsProbabilities(counts, uniform));
}

std::vector<uint8_t> Candidates(const std::vector<FlexLbEndpoint>& endpoints,
                                FlexLbConfig config = {}) {
  std::vector<uint8_t> marks(endpoints.size());
  FlexLbCandidates(endpoints, config, marks);
  return marks;
}

FlexLbEndpoint Cost(double cost_ms, double wait_ms = 0, double pending = 0) {
  return FlexLbEndpoint{cost_ms, wait_ms, pending, true};
}

// Seed 000 / policies.md §9: tol = max(floor(0.1·S_min), 20 ms).
TEST(FlexLbTest, TwentyMillisecondFloorBelowTwoHundred) {
  // S_min = 100: tol = max(10, 20) = 20, so 120 is in and 121 is out.
  EXPECT_EQ(Candidates({Cost(100), Cost(120), Cost(121)}), (std::vector<uint8_t>{1, 1, 0}));
}

TEST(FlexLbTest, RelativeToleranceAboveTwoHundred) {
  // S_min = 1009: tol = max(floor(100.9), 20) = 100, so 1109 is in and 1110 out.
  EXPECT_EQ(Candidates({Cost(1109), Cost(1009), Cost(1110)}), (std::vector<uint8_t>{1, 1, 0}));
}

TEST(FlexLbTest, OutliersOnPendingOrWaitAreDropped) {
  // Average pending (0+0+0+12)/4 = 3: 12 > 9 drops the cheapest endpoint.
  EXPECT_EQ(Candidates({Cost(50, 0, 12), Cost(100), Cost(110), Cost(200)}),
            (std::vector<uint8_t>{0, 1, 1, 0}));
  // Average wait (1+1+1+100)/4 = 25.75: 100 > 77.25 is an outlier.
  EXPECT_EQ(Candidates({Cost(100, 1), Cost(100, 1), Cost(100, 1), Cost(100, 100)}),
            (std::vector<uint8_t>{1, 1, 1, 0}));
}

TEST(FlexLbTest, UnavailableEndpointsAreNeverCandidates) {
  std::vector<FlexLbEndpoint> e = {Cost(10), Cost(100), Cost(15)};
  e[0].available = false;
  EXPECT_EQ(Candidates(e), (std::vector<uint8_t>{0, 0, 1}));
}

TEST(FlexLbTest, WhenAllAreOutliersTheLeastWaitIsKept) {
  // An outlier factor of 0 drops every endpoint with any pending or wait.
  FlexLbConfig config;
  config.pending_outlier = config.wait_outlier = 0;
  EXPECT_EQ(Candidates({Cost(10, 5, 1), Cost(90, 3, 1), Cost(10, 4, 1)}, config),
            (std::vector<uint8_t>{0, 1, 0}));
}

}  // namespace
}  // namespace kvroute::policies
