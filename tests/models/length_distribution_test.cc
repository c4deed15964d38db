// Length distributions by value: each family's sample mean and variance lie
// within sampling bounds of its closed form, truncation and clamps hold, and
// a draw consumes one variate whatever the family.
#include "models/length_distribution.h"

#include <gtest/gtest.h>

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <vector>

namespace kvroute::models {
namespace {

using Kind = LengthDistribution::Kind;

struct Moments {
  double mean = 0, variance = 0, min = INFINITY, max = -INFINITY;
};

constexpr int kDraws = 200000;

Moments Sample(const LengthDistribution& d, int draws = kDraws) {
  sim::RandomStream rng(1, "length_test");
  double sum = 0, sum2 = 0;
  Moments m;
  for (int i = 0; i < draws; ++i) {
    const double x = d.Sample(rng);
    sum += x;
    sum2 += x * x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / draws;
  m.variance = sum2 / draws - m.mean * m.mean;
  return m;
}

// The sample mean is within 5 standard errors of the true mean, and the sample
// variance within 5 of its standard errors, sqrt((mu4 - sd^4) / n), with the
// fourth central moment mu4 at most 15 sd^4 for the families here (gamma
// with shape 0.5 has 15; exponential 9; normal 3).
void ExpectMoments(const LengthDistribution& d, double mean, double variance, int draws = kDraws) {
  const Moments m = Sample(d, draws);
  const double se_mean = std::sqrt(variance / draws);
  const double se_var = std::sqrt(14 * variance * variance / draws);
  EXPECT_NEAR(m.mean, mean, 5 * se_mean) << d.Describe();
  EXPECT_NEAR(m.variance, variance, 5 * se_var) << d.Describe();
  EXPECT_NEAR(d.Mean(), mean, 1e-9 * mean) << d.Describe();
}

TEST(LengthDistributionTest, ExponentialHasItsMeanAndVariance) {
  ExpectMoments({.kind = Kind::kExponential, .mean = 300}, 300, 300.0 * 300);
}

TEST(LengthDistributionTest, GammaHasShapeTimesScaleAndShapeTimesScaleSquared) {
  // Fewer draws: each inverts the incomplete gamma function.
  ExpectMoments({.kind = Kind::kGamma, .shape = 2.5, .scale = 40}, 100, 2.5 * 40 * 40, 40000);
  ExpectMoments({.kind = Kind::kGamma, .shape = 0.5, .scale = 10}, 5, 0.5 * 100, 40000);
}

TEST(LengthDistributionTest, NormalWithoutTruncationHasItsMeanAndSd) {
  ExpectMoments({.kind = Kind::kNormal, .mean = 500, .sd = 50}, 500, 2500);
}

// Truncated to [a, b]: mean mu + sd (phi(alpha) - phi(beta)) / Z and the
// variance of the truncated normal (Johnson, Kotz & Balakrishnan, 1994).
TEST(LengthDistributionTest, TruncatedNormalHasTheTruncatedMoments) {
  const LengthDistribution d{.kind = Kind::kNormal, .min = 80, .max = 260, .mean = 100, .sd = 100};
  const double alpha = (80 - 100) / 100.0, beta = (260 - 100) / 100.0;
  auto phi = [](double z) { return std::exp(-z * z / 2) / std::sqrt(2 * M_PI); };
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double z = cdf(beta) - cdf(alpha);
  const double mean = 100 + 100 * (phi(alpha) - phi(beta)) / z;
  const double variance =
      100.0 * 100 *
      (1 + (alpha * phi(alpha) - beta * phi(beta)) / z - std::pow((phi(alpha) - phi(beta)) / z, 2));
  ExpectMoments(d, mean, variance);
  const Moments m = Sample(d);
  EXPECT_GE(m.min, 80);
  EXPECT_LE(m.max, 260);
  EXPECT_GT(m.min, 80 - 1e-9);
  EXPECT_LT(m.min, 81);  // truncation, not a clamp: no mass piles at the bound
}

TEST(LengthDistributionTest, ClampsHoldForTheUnboundedFamilies) {
  const LengthDistribution e{.kind = Kind::kExponential, .min = 10, .max = 50, .mean = 100};
  const Moments m = Sample(e);
  EXPECT_EQ(m.min, 10);
  EXPECT_EQ(m.max, 50);
  sim::RandomStream rng(2, "clamp");
  for (int i = 0; i < 1000; ++i) EXPECT_LE(e.Draw(rng), 50u);
}

TEST(LengthDistributionTest, EmpiricalDrawsEachValueAtItsWeight) {
  const LengthDistribution d =
      LengthDistribution::Empirical({30, 10, 20, 10}, {1, 2, 3, 4}, "test");
  ASSERT_EQ(d.values, (std::vector<double>{10, 20, 30}));
  sim::RandomStream rng(3, "empirical");
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < kDraws; ++i) ++counts[d.Draw(rng) / 10 - 1];
  const double p[3] = {0.6, 0.3, 0.1};
  for (int k = 0; k < 3; ++k) {
    const double se = std::sqrt(p[k] * (1 - p[k]) / kDraws);
    EXPECT_NEAR(counts[k] / double(kDraws), p[k], 5 * se) << k;
  }
  EXPECT_DOUBLE_EQ(d.Mean(), 0.6 * 10 + 0.3 * 20 + 0.1 * 30);
  EXPECT_DOUBLE_EQ(d.MeanDraw(), d.Mean());
}

// One variate per draw: after n draws of any family the stream is where n
// uniforms would leave it.
TEST(LengthDistributionTest, EveryFamilyConsumesOneVariatePerDraw) {
  const std::vector<LengthDistribution> all = {
      {.kind = Kind::kNormal, .min = 0, .mean = 10, .sd = 50},
      {.kind = Kind::kExponential, .mean = 3},
      {.kind = Kind::kGamma, .shape = 0.3, .scale = 3},
      LengthDistribution::Empirical({1, 2, 3}, {1, 1, 1}, "test")};
  for (const LengthDistribution& d : all) {
    sim::RandomStream a(4, "one"), b(4, "one");
    for (int i = 0; i < 100; ++i) {
      d.Draw(a);
      b.Uniform();
    }
    EXPECT_EQ(a.Uniform(), b.Uniform()) << d.Describe();
  }
}

TEST(LengthDistributionTest, MeanDrawIncludesRounding) {
  const LengthDistribution d{.kind = Kind::kExponential, .mean = 0.4};
  // P(round(X) >= k) = exp(-(k - 0.5) / 0.4) for k >= 1.
  double expected = 0;
  for (int k = 1; k < 60; ++k) expected += std::exp(-(k - 0.5) / 0.4);
  EXPECT_NEAR(d.MeanDraw(), expected, 1e-4);
}

}  // namespace
}  // namespace kvroute::models
