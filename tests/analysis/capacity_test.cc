#include "analysis/capacity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {
namespace {

TEST(SloCapacityTest, HighestLoadWithEveryLowerLoadPassing) {
  std::vector<LoadOutcome> grid{{10, true}, {20, true}, {30, false}, {40, true}};
  Capacity c = SloCapacity(grid);
  EXPECT_EQ(c.qps, 20);  // 40 passes, but 30 below it does not
  EXPECT_FALSE(c.left_censored);
  EXPECT_FALSE(c.right_censored);
}

TEST(SloCapacityTest, LeftCensoredWhenTheLowestLoadFails) {
  std::vector<LoadOutcome> grid{{30, false}, {10, false}, {20, true}};
  Capacity c = SloCapacity(grid);
  EXPECT_TRUE(c.left_censored);
  EXPECT_EQ(c.qps, 0);
}

TEST(SloCapacityTest, RightCensoredWhenTheHighestLoadPasses) {
  std::vector<LoadOutcome> grid{{20, true}, {10, true}};
  Capacity c = SloCapacity(grid);
  EXPECT_TRUE(c.right_censored);
  EXPECT_EQ(c.qps, 20);
}

TEST(SeedStatisticsTest, StudentTIntervalByHand) {
  // mean 20, sd 10, t(0.975, 2) = 4.302653: half-width 4.302653 * 10 / sqrt(3).
  std::vector<double> values{10, 20, 30};
  SeedStatistics s = Summarize(values);
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 20);
  EXPECT_DOUBLE_EQ(s.sd, 10);
  EXPECT_NEAR(s.ci_high - s.mean, 4.302653 * 10 / std::sqrt(3.0), 1e-5);
  EXPECT_NEAR(s.mean - s.ci_low, s.ci_high - s.mean, 1e-12);
}

TEST(SeedStatisticsTest, OneSeedHasNoInterval) {
  std::vector<double> values{7};
  SeedStatistics s = Summarize(values);
  EXPECT_EQ(s.mean, 7);
  EXPECT_TRUE(std::isnan(s.sd));
  EXPECT_TRUE(std::isnan(s.ci_low));
}

PointResult Point(const std::string& policy, double qps, uint64_t seed, double p99, double hit) {
  PointResult p;
  p.policy = policy;
  p.qps = qps;
  p.seed = seed;
  p.slo_values = {p99};
  p.token_hit_rate = hit;
  return p;
}

TEST(SweepSummaryTest, CapacityPerSeedAndSummaryAtTheReferenceLoad) {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 1.0}};
  // Seed 1 passes 10 and 20; seed 2 passes only 10.
  r.points = {Point("a", 10, 1, 0.5, 0.4), Point("a", 10, 2, 0.6, 0.6), Point("a", 20, 1, 0.9, 0.5),
              Point("a", 20, 2, 1.5, 0.7)};
  ComputeCapacityAndSummary(20, &r);
  ASSERT_EQ(r.capacity.size(), 2u);
  EXPECT_EQ(r.capacity[0].capacity.qps, 20);
  EXPECT_TRUE(r.capacity[0].capacity.right_censored);
  EXPECT_EQ(r.capacity[1].capacity.qps, 10);
  ASSERT_EQ(r.summary.size(), 1u);
  EXPECT_DOUBLE_EQ(r.summary[0].capacity.mean, 15);
  EXPECT_EQ(r.summary[0].right_censored, 1u);
  EXPECT_DOUBLE_EQ(r.summary[0].token_hit_rate, 0.6);
  EXPECT_DOUBLE_EQ(r.summary[0].slo_value, 1.2);
}

}  // namespace
}  // namespace kvroute::analysis
