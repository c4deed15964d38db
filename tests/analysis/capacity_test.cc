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

TEST(SloCapacityTest, TheBracketIsTheLastPassingAndTheFirstFailingLoad) {
  std::vector<LoadOutcome> grid{{10, true}, {20, true}, {30, false}, {40, true}};
  EXPECT_EQ(SloCapacity(grid).upper_qps, 30);
  std::vector<LoadOutcome> below{{10, false}, {20, false}};
  EXPECT_EQ(SloCapacity(below).upper_qps, 10);  // capacity < the lowest load
  std::vector<LoadOutcome> above{{10, true}, {20, true}};
  EXPECT_TRUE(std::isinf(SloCapacity(above).upper_qps));
}

TEST(SweepSummaryTest, CensoredSeedsAreCountedWithTheirBoundNotAveraged) {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 1.0}};
  // Seed 1 passes 10 and 20 (right-censored); seed 2 passes only 10.
  r.points = {Point("a", 10, 1, 0.5, 0.4), Point("a", 10, 2, 0.6, 0.6), Point("a", 20, 1, 0.9, 0.5),
              Point("a", 20, 2, 1.5, 0.7)};
  ComputeCapacityAndSummary(20, 0, &r);
  ASSERT_EQ(r.capacity.size(), 2u);
  EXPECT_EQ(r.capacity[0].capacity.qps, 20);
  EXPECT_TRUE(r.capacity[0].capacity.right_censored);
  EXPECT_EQ(r.capacity[1].capacity.qps, 10);
  EXPECT_EQ(r.capacity[1].capacity.upper_qps, 20);
  ASSERT_EQ(r.summary.size(), 1u);
  const SummaryRow& s = r.summary[0];
  EXPECT_EQ(s.seeds, 2u);
  EXPECT_EQ(s.uncensored(), 1u);  // the censored seed is not in the mean
  EXPECT_DOUBLE_EQ(s.capacity.mean, 10);
  EXPECT_DOUBLE_EQ(s.capacity_upper_mean_qps, 20);
  EXPECT_TRUE(s.quantised);  // no bisection: known only to [10, 20)
  EXPECT_EQ(s.right_censored, 1u);
  EXPECT_EQ(s.at_least_qps, 20);
  EXPECT_TRUE(std::isnan(s.below_qps));
  EXPECT_DOUBLE_EQ(s.token_hit_rate, 0.6);
  EXPECT_DOUBLE_EQ(s.slo_value, 1.2);
}

TEST(SweepSummaryTest, EveryCensoredSeedLeavesNoMeanOnlyABound) {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 1.0}};
  r.points = {Point("a", 10, 1, 2, 0), Point("a", 20, 1, 3, 0), Point("a", 10, 2, 2, 0),
              Point("a", 20, 2, 3, 0)};
  ComputeCapacityAndSummary(10, 0, &r);
  const SummaryRow& s = r.summary[0];
  EXPECT_EQ(s.left_censored, 2u);
  EXPECT_EQ(s.uncensored(), 0u);
  EXPECT_TRUE(std::isnan(s.capacity.mean));
  EXPECT_EQ(s.below_qps, 10);
}

TEST(SweepSummaryTest, ABracketWithinThePrecisionIsResolved) {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 1.0}};
  r.points = {Point("a", 10, 1, 0.5, 0), Point("a", 12.5, 1, 0.9, 0), Point("a", 15, 1, 2, 0)};
  ComputeCapacityAndSummary(10, 2.5, &r);
  EXPECT_FALSE(r.summary[0].quantised);
  EXPECT_EQ(r.summary[0].capacity.mean, 12.5);
  ComputeCapacityAndSummary(10, 2.4, &r);
  EXPECT_TRUE(r.summary[0].quantised);
}

}  // namespace
}  // namespace kvroute::analysis
