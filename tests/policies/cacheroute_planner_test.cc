// The CacheRoute planner on worked examples computed by hand from seed 003
// §3.1 (eq. 2, eq. 3 and Algorithm 1).
#include "policies/cacheroute_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

std::vector<uint32_t> MembersOf(const RoutingPlan& plan, uint32_t key) {
  auto m = plan.Members(key);
  return {m.begin(), m.end()};
}

// R = 3, q_cap = 10, W = 1 so C = 3. Key 0 at 25 req/s needs k = ceil(2.5) = 3
// and takes all three slots; every other key is left to the cold tail, whose
// 19 req/s start each destination at 19/3.
TEST(CacheRoutePlannerTest, HotKeyTakesKbSlotsAndTheRestIsColdTail) {
  std::vector<double> rates{25, 8, 6, 4, 1};
  RoutingPlan plan = BuildPlan(rates, {.destinations = 3, .q_cap = 10, .slots_per_destination = 1});
  EXPECT_EQ(plan.admitted_keys(), 1u);
  EXPECT_EQ(plan.slots_used(), 3u);
  EXPECT_EQ(MembersOf(plan, 0), (std::vector<uint32_t>{0, 1, 2}));
  for (uint32_t k = 1; k < 5; ++k) EXPECT_FALSE(plan.Admitted(k));
  EXPECT_DOUBLE_EQ(plan.cold_tail_rate(), 19);
  for (double load : plan.expected_load()) EXPECT_NEAR(load, 19.0 / 3 + 25.0 / 3, 1e-12);
}

// C = 3. Key 0 (k = 2) fits; key 1 (k = 2) would make 4 > 3 and is skipped;
// the scan goes on and key 2 (k = 1) fills the last slot (Algorithm 1 lines
// 10-11). Key 1's 12 req/s are the cold tail: 4 per destination. LPT puts key 0
// on destinations 0 and 1 (ties to the lower index), then key 2 on 2.
TEST(CacheRoutePlannerTest, AdmissionSkipsAKeyThatDoesNotFitAndGoesOn) {
  std::vector<double> rates{15, 12, 5};
  RoutingPlan plan = BuildPlan(rates, {.destinations = 3, .q_cap = 10, .slots_per_destination = 1});
  EXPECT_EQ(plan.admitted_keys(), 2u);
  EXPECT_EQ(plan.slots_used(), 3u);
  EXPECT_EQ(MembersOf(plan, 0), (std::vector<uint32_t>{0, 1}));
  EXPECT_FALSE(plan.Admitted(1));
  EXPECT_EQ(MembersOf(plan, 2), (std::vector<uint32_t>{2}));
  EXPECT_EQ(plan.expected_load(), (std::vector<double>{11.5, 11.5, 9}));
  EXPECT_NEAR(plan.ExpectedMaxOverMean(), 11.5 / (32.0 / 3), 1e-12);
}

// All k = 1 and all admitted: plain LPT. Loads go [5,0] [5,4] [5,7] [8,7]
// [8,9] [9,9]; equal rates keep key order.
TEST(CacheRoutePlannerTest, LptPlacesEachKeyOnTheLeastLoadedDestination) {
  std::vector<double> rates{5, 4, 3, 3, 2, 1};
  RoutingPlan plan =
      BuildPlan(rates, {.destinations = 2, .q_cap = 100, .slots_per_destination = 10});
  std::vector<uint32_t> placed;
  for (uint32_t k = 0; k < 6; ++k) placed.push_back(MembersOf(plan, k).at(0));
  EXPECT_EQ(placed, (std::vector<uint32_t>{0, 1, 1, 0, 1, 0}));
  EXPECT_EQ(plan.expected_load(), (std::vector<double>{9, 9}));
  EXPECT_DOUBLE_EQ(plan.cold_tail_rate(), 0);
}

// Placement is by rate, not key order: a hotter key later in the list is placed first.
TEST(CacheRoutePlannerTest, KeysArePlacedInDecreasingRate) {
  std::vector<double> rates{1, 9, 4};
  RoutingPlan plan =
      BuildPlan(rates, {.destinations = 2, .q_cap = 100, .slots_per_destination = 5});
  EXPECT_EQ(MembersOf(plan, 1), (std::vector<uint32_t>{0}));
  EXPECT_EQ(MembersOf(plan, 2), (std::vector<uint32_t>{1}));
  EXPECT_EQ(MembersOf(plan, 0), (std::vector<uint32_t>{1}));
}

// The cold-tail baseline changes placement: with 30 req/s of cold tail on two
// destinations, both start at 15, and k_b shares stack on top of it.
TEST(CacheRoutePlannerTest, ColdTailBaselineStartsEveryDestination) {
  std::vector<double> rates{20, 10, 10, 10};  // C = 2: keys 0 and 1 admitted
  RoutingPlan plan =
      BuildPlan(rates, {.destinations = 2, .q_cap = 100, .slots_per_destination = 1});
  EXPECT_DOUBLE_EQ(plan.cold_tail_rate(), 20);
  EXPECT_EQ(plan.expected_load(), (std::vector<double>{30, 20}));
}

TEST(CacheRoutePlannerTest, KbIsCappedAtTheNumberOfDestinations) {
  std::vector<double> rates{1000};
  RoutingPlan plan =
      BuildPlan(rates, {.destinations = 2, .q_cap = 10, .slots_per_destination = 100});
  EXPECT_EQ(MembersOf(plan, 0), (std::vector<uint32_t>{0, 1}));
}

TEST(CacheRoutePlannerTest, KeysWithNoTrafficAreNotAdmitted) {
  std::vector<double> rates{0, 3, 0};
  RoutingPlan plan = BuildPlan(rates, {.destinations = 2, .q_cap = 10, .slots_per_destination = 5});
  EXPECT_EQ(plan.admitted_keys(), 1u);
  EXPECT_FALSE(plan.Admitted(0));
  EXPECT_TRUE(plan.Admitted(1));
}

TEST(CacheRoutePlannerTest, NoSlotsMeansEverythingIsColdTail) {
  std::vector<double> rates{5, 5};
  RoutingPlan plan = BuildPlan(rates, {.destinations = 2, .q_cap = 10, .slots_per_destination = 0});
  EXPECT_EQ(plan.admitted_keys(), 0u);
  EXPECT_EQ(plan.expected_load(), (std::vector<double>{5, 5}));
}

TEST(CacheRoutePlannerTest, ChurnCountsKeysWhoseDestinationsChanged) {
  PlannerConfig config{.destinations = 2, .q_cap = 100, .slots_per_destination = 10};
  RoutingPlan before = BuildPlan(std::vector<double>{5, 4, 3, 3}, config);  // 0->0 1->1 2->1 3->0
  RoutingPlan after = BuildPlan(std::vector<double>{4, 5, 3, 3}, config);   // 1->0 0->1 2->1 3->0
  EXPECT_DOUBLE_EQ(PlanChurn(before, before), 0);
  EXPECT_DOUBLE_EQ(PlanChurn(before, after), 0.5);
}

// k_b = ceil(rate / q_cap): with q_cap 2, rates 5, 4, 3, 1 give k_b 3, 2, 2,
// 1; after the drift 5, 2, 3, 0 they are 3, 1, 2 and key 3 leaves the plan.
// Of the three keys admitted in both, one (key 1) changed k_b.
TEST(CacheRoutePlannerTest, KbChangeCountsKeysAdmittedInBothWhoseReplicationChanged) {
  PlannerConfig config{.destinations = 4, .q_cap = 2, .slots_per_destination = 10};
  RoutingPlan before = BuildPlan(std::vector<double>{5, 4, 3, 1}, config);
  RoutingPlan after = BuildPlan(std::vector<double>{5, 2, 3, 0}, config);
  ASSERT_EQ(before.Members(1).size(), 2u);
  ASSERT_EQ(after.Members(1).size(), 1u);
  ASSERT_FALSE(after.Admitted(3));
  EXPECT_DOUBLE_EQ(KbChangeShare(before, before), 0);
  EXPECT_DOUBLE_EQ(KbChangeShare(before, after), 1.0 / 3);
  EXPECT_DOUBLE_EQ(KbChangeShare(RoutingPlan(), after), 0);
}

// LPT (Graham 1969) with k_b = 1 and no cold tail is within 4/3 - 1/(3m) of
// the optimal makespan; the optimum by brute force over m^n assignments.
TEST(CacheRoutePlannerTest, LptWithinGrahamBoundOfOptimum) {
  sim::RandomStream rng(9, "test.lpt");
  for (int instance = 0; instance < 300; ++instance) {
    uint32_t m = 2 + static_cast<uint32_t>(rng.UniformInt(3));  // 2..4 destinations
    uint32_t n = m + 1 + static_cast<uint32_t>(rng.UniformInt(5));
    std::vector<double> rates(n);
    for (double& r : rates) r = 1 + static_cast<double>(rng.UniformInt(20));
    RoutingPlan plan =
        BuildPlan(rates, {.destinations = m, .q_cap = 1e9, .slots_per_destination = n});
    ASSERT_EQ(plan.admitted_keys(), n);
    double lpt = *std::max_element(plan.expected_load().begin(), plan.expected_load().end());

    double best = 1e18;
    std::vector<double> load(m, 0);
    std::function<void(uint32_t)> place = [&](uint32_t b) {
      if (b == n) {
        best = std::min(best, *std::max_element(load.begin(), load.end()));
        return;
      }
      for (uint32_t d = 0; d < m; ++d) {
        load[d] += rates[b];
        if (load[d] < best) place(b + 1);
        load[d] -= rates[b];
      }
    };
    place(0);
    EXPECT_LE(lpt, (4.0 / 3 - 1.0 / (3 * m)) * best + 1e-9) << "instance " << instance;
  }
}

TEST(CacheRoutePlannerTest, AblationsDropReplicationAndLpt) {
  std::vector<double> rates{25, 8, 6, 4, 1};
  PlannerConfig config{.destinations = 3, .q_cap = 10, .slots_per_destination = 4};
  config.ablation = PlanAblation::kAffinityOnly;
  RoutingPlan affinity = BuildPlan(rates, config);
  EXPECT_EQ(affinity.admitted_keys(), 5u);  // k_b = 1 for every key
  EXPECT_EQ(affinity.slots_used(), 5u);
  config.ablation = PlanAblation::kReplication;
  RoutingPlan replication = BuildPlan(rates, config);
  EXPECT_EQ(replication.Members(0).size(), 3u);  // k_0 = ceil(25/10)
  EXPECT_EQ(replication.slots_used(), 7u);
  // Hashed placement: each key's home is fixed by the key alone.
  EXPECT_EQ(replication.Members(3)[0], affinity.Members(3)[0]);
  double total = 0;
  for (double l : replication.expected_load()) total += l;
  EXPECT_NEAR(total, 44, 1e-9);
}

}  // namespace
}  // namespace kvroute::policies
