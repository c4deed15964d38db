#include "analysis/fleet_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

namespace kvroute::analysis {
namespace {

// Every fleet with at most max_replicas of each kind, one by one: the cheapest
// that meets the test, or +inf.
double BruteForceCheapest(const std::vector<FleetKind>& kinds, const FleetTest& meets, bool mixes) {
  double best = INFINITY;
  Fleet fleet(kinds.size(), 0);
  for (;;) {
    size_t k = 0;
    while (k < kinds.size() && fleet[k] == kinds[k].max_replicas) fleet[k++] = 0;
    if (k == kinds.size()) break;
    ++fleet[k];
    size_t used = 0;
    for (uint32_t c : fleet) used += c > 0;
    if (used > 1 && !mixes) continue;
    if (meets(fleet)) best = std::min(best, FleetUsdPerHour(kinds, fleet));
  }
  return best;
}

// A monotone test drawn at random: the up-set of a few random fleets (a fleet
// meets when it holds at least one of them count by count). Every monotone
// test is of this form.
FleetTest RandomUpSet(const std::vector<FleetKind>& kinds, std::mt19937_64& rng) {
  std::vector<Fleet> generators(1 + rng() % 4);
  for (Fleet& g : generators) {
    for (const FleetKind& k : kinds)
      g.push_back(static_cast<uint32_t>(rng() % (k.max_replicas + 3)));
  }
  return [generators](const Fleet& fleet) {
    for (const Fleet& g : generators) {
      bool holds = true;
      for (size_t k = 0; k < g.size(); ++k) holds = holds && fleet[k] >= g[k];
      if (holds) return true;
    }
    return false;
  };
}

std::vector<FleetKind> RandomKinds(size_t n, std::mt19937_64& rng) {
  std::vector<FleetKind> kinds;
  for (size_t k = 0; k < n; ++k) {
    // Whole cents, so that equal prices (ties) come up too.
    kinds.push_back({"kind" + std::to_string(k), 0.25 * static_cast<double>(1 + rng() % 16),
                     static_cast<uint32_t>(1 + rng() % 12)});
  }
  return kinds;
}

void ExpectSameAsBruteForce(size_t kind_count, bool mixes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 400; ++trial) {
    const std::vector<FleetKind> kinds = RandomKinds(kind_count, rng);
    const FleetTest meets = RandomUpSet(kinds, rng);
    const double expected = BruteForceCheapest(kinds, meets, mixes);
    const FleetSearchResult found = FindCheapestFleet(kinds, meets, mixes);
    ASSERT_EQ(found.found, std::isfinite(expected)) << "trial " << trial;
    if (!found.found) continue;
    EXPECT_DOUBLE_EQ(found.usd_per_hour, expected) << "trial " << trial;
    EXPECT_DOUBLE_EQ(FleetUsdPerHour(kinds, found.cheapest), found.usd_per_hour);
    EXPECT_TRUE(meets(found.cheapest)) << "trial " << trial;
  }
}

TEST(FleetSearch, OneKindIsTheFewestReplicasThatMeet) { ExpectSameAsBruteForce(1, false, 1); }
TEST(FleetSearch, KindsAloneMatchBruteForce) { ExpectSameAsBruteForce(3, false, 2); }
TEST(FleetSearch, MixesOfTwoKindsMatchBruteForce) { ExpectSameAsBruteForce(2, true, 3); }
TEST(FleetSearch, MixesOfThreeKindsMatchBruteForce) { ExpectSameAsBruteForce(3, true, 4); }

// Capacity adds up (an M/D/c-like fluid bound): a fleet meets a load of 100
// when 30 per H100 replica and 14 per A100 replica cover it.
TEST(FleetSearch, AdditiveCapacityByHand) {
  const std::vector<FleetKind> kinds{{"h100", 3.348, 10}, {"a100", 2.16, 10}};
  const FleetTest meets = [](const Fleet& f) { return 30 * f[0] + 14 * f[1] >= 100; };
  const FleetSearchResult alone = FindCheapestFleet(kinds, meets, false);
  // 4 H100 ($13.392) against 8 A100 ($17.28).
  EXPECT_EQ(alone.cheapest, (Fleet{4, 0}));
  EXPECT_EQ(alone.single_kind_minimum, (std::vector<uint32_t>{4, 8}));
  // Mixed: 3 H100 + 1 A100 (90 + 14 = 104) at $12.204 beats 4 H100.
  const FleetSearchResult mixed = FindCheapestFleet(kinds, meets, true);
  EXPECT_EQ(mixed.cheapest, (Fleet{3, 1}));
  EXPECT_NEAR(mixed.usd_per_hour, 3 * 3.348 + 2.16, 1e-12);
}

TEST(FleetSearch, BisectsInsteadOfCounting) {
  const std::vector<FleetKind> kinds{{"only", 1.0, 1000}};
  const FleetSearchResult r = FindCheapestFleet(
      kinds, [](const Fleet& f) { return f[0] >= 377; }, false);
  EXPECT_EQ(r.cheapest, Fleet{377});
  // The largest count, then about log2(1000) halvings.
  EXPECT_LE(r.tested.size(), 12u);
  std::set<Fleet> distinct;
  for (const auto& [fleet, met] : r.tested) distinct.insert(fleet);
  EXPECT_EQ(distinct.size(), r.tested.size()) << "a fleet was tested twice";
}

TEST(FleetSearch, NothingMeetsWithinTheLimits) {
  const std::vector<FleetKind> kinds{{"a", 1.0, 5}, {"b", 2.0, 5}};
  const FleetSearchResult r = FindCheapestFleet(
      kinds, [](const Fleet&) { return false; }, true);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.single_kind_minimum, (std::vector<uint32_t>{0, 0}));
}

TEST(FleetSearch, NeverTestsAnEmptyFleet) {
  const std::vector<FleetKind> kinds{{"a", 1.0, 4}, {"b", 1.5, 4}, {"c", 0.5, 4}};
  const FleetSearchResult r = FindCheapestFleet(
      kinds, [](const Fleet& f) { return f[0] + 2 * f[1] + f[2] >= 5; }, true);
  for (const auto& [fleet, met] : r.tested) {
    EXPECT_GT(fleet[0] + fleet[1] + fleet[2], 0u);
  }
}

}  // namespace
}  // namespace kvroute::analysis
