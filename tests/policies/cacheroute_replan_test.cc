// CacheRoute's replanning modes (seed 003 §3.2, §5.4): the hold rule on a
// worked example, and churn-aware replanning against a fresh LPT plan on a
// drifted rate vector.
#include "policies/cacheroute_replan.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/workload.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

// R = 2, q_cap = 100, C = 2. Rates {10, 5, 1} admit keys 0 and 1: key 0 on
// destination 0, key 1 on 1. The rates then reverse to {1, 5, 10}: the fresh
// plan admits key 2 (on 0) and key 1 (still on 1).
class HoldRuleTest : public ::testing::Test {
 protected:
  PlannerConfig config_{.destinations = 2, .q_cap = 100, .slots_per_destination = 1};
  std::vector<double> before_{10, 5, 1}, after_{1, 5, 10};
  RoutingPlan held_ = BuildPlan(before_, config_);
  RoutingPlan fresh_ = BuildPlan(after_, config_);
};

// Held under the new rates: warm 1 + 5 = 6, the cold 10 split 5 + 5, loads
// {6, 10}. Fresh: warm 15, cold 1, loads {10.5, 5.5}.
TEST_F(HoldRuleTest, OutlookOfAPlanUnderNewRates) {
  PlanOutlook h = Evaluate(held_, after_), f = Evaluate(fresh_, after_);
  EXPECT_DOUBLE_EQ(h.warm_rate, 6);
  EXPECT_DOUBLE_EQ(h.max_load, 10);
  EXPECT_DOUBLE_EQ(f.warm_rate, 15);
  EXPECT_DOUBLE_EQ(f.max_load, 10.5);
  EXPECT_EQ(NewAssignments(held_, fresh_), 1u);  // key 2 on destination 0
}

// Staleness over 1 s: (15 - 6) + max(0, 10 - 10.5) = 9 requests; re-warm:
// one moved pair times the misses charged per move.
TEST_F(HoldRuleTest, InstallsWhenStalenessExceedsTheRewarmPenalty) {
  EXPECT_TRUE(FreshPlanPaysOff(held_, fresh_, after_, 1.0, 1.0));
  EXPECT_TRUE(FreshPlanPaysOff(held_, fresh_, after_, 1.0, 8.9));
  EXPECT_FALSE(FreshPlanPaysOff(held_, fresh_, after_, 1.0, 9.0));
  EXPECT_FALSE(FreshPlanPaysOff(held_, held_, before_, 60.0, 0.0));  // nothing to gain
}

// 400 keys at Zipf 1 and 600 req/s on 8 destinations (q_cap 12, W 16), then
// each rate drifts by a factor 1 + 0.05·N(0, 1) — few keys change k_b.
class DriftTest : public ::testing::Test {
 protected:
  DriftTest() {
    sim::RandomStream rng(5, "test.drift");
    for (double share : models::ZipfShares(400, 1.0)) {
      base_.push_back(600 * share);
      drifted_.push_back(base_.back() * std::max(0.0, 1 + 0.05 * rng.Normal()));
    }
  }
  PlannerConfig config_{.destinations = 8, .q_cap = 12, .slots_per_destination = 16};
  std::vector<double> base_, drifted_;
};

TEST_F(DriftTest, ChurnAwareMovesFarLessThanAFreshPlanWithinTheBound) {
  RoutingPlan old_plan = BuildPlan(base_, config_);
  RoutingPlan fresh = BuildPlan(drifted_, config_);
  RoutingPlan aware = BuildPlanFrom(old_plan, drifted_, config_, 0.05);
  double fresh_churn = PlanChurn(old_plan, fresh), aware_churn = PlanChurn(old_plan, aware);
  EXPECT_GT(fresh_churn, 0.5);                 // LPT is sensitive to small drift (§5.4)
  EXPECT_LT(aware_churn, 0.25 * fresh_churn);  // far below
  // Same admission and k_b as the fresh plan; only placement differs.
  EXPECT_EQ(aware.admitted_keys(), fresh.admitted_keys());
  EXPECT_EQ(aware.slots_used(), fresh.slots_used());
  // Within 5% of the fresh LPT plan's expected max and max/mean.
  EXPECT_LE(Evaluate(aware, drifted_).max_load, 1.05 * Evaluate(fresh, drifted_).max_load + 1e-9);
  EXPECT_LE(aware.ExpectedMaxOverMean(), 1.05 * fresh.ExpectedMaxOverMean() + 1e-9);
  EXPECT_DOUBLE_EQ(Evaluate(aware, drifted_).max_load,
                   *std::max_element(aware.expected_load().begin(), aware.expected_load().end()));
}

TEST_F(DriftTest, ChurnAwareKeepsAnUnchangedPlan) {
  RoutingPlan old_plan = BuildPlan(base_, config_);
  EXPECT_EQ(PlanChurn(old_plan, BuildPlanFrom(old_plan, base_, config_, 0.0)), 0.0);
}

}  // namespace
}  // namespace kvroute::policies
