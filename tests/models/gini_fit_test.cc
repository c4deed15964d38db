// The Gini fit (models/key_rates.cc) evaluates only the bisection steps whose
// side of the root it does not already know; here it must give the plain
// bisection's shares (tests/oracle/gini_fit_bisection.h) to the bit, or throw
// where that throws, across key counts, targets and caps.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/key_rates.h"
#include "tests/oracle/gini_fit_bisection.h"

namespace kvroute::models {
namespace {

void ExpectSameFit(uint32_t keys, double gini, double max_share) {
  SCOPED_TRACE("keys " + std::to_string(keys) + ", gini " + std::to_string(gini) + ", cap " +
               std::to_string(max_share));
  std::vector<double> expected;
  bool reachable = true;
  try {
    expected = oracle::GiniFitByBisection(keys, gini, max_share);
  } catch (const std::invalid_argument&) {
    reachable = false;
  }
  if (!reachable) {
    EXPECT_THROW(GiniFitShares(keys, gini, max_share), std::invalid_argument);
    return;
  }
  std::vector<double> shares = GiniFitShares(keys, gini, max_share);
  ASSERT_EQ(shares.size(), expected.size());
  EXPECT_EQ(std::memcmp(shares.data(), expected.data(), shares.size() * sizeof(double)), 0);
}

TEST(GiniFitTest, ThePapersProfileIsTheBisectionsToTheBit) {
  ExpectSameFit(128824, 0.756, 0.003);  // seed 003 §5.1, the flagship's keys
  ExpectSameFit(128824, 0.5, 1.0);
}

TEST(GiniFitTest, AGridOfTargetsAndCapsIsTheBisectionsToTheBit) {
  for (uint32_t keys : {2u, 3u, 10u, 100u, 1000u, 5000u}) {
    for (double gini : {0.0, 0.01, 0.3, 0.5, 0.756, 0.9, 0.97, 0.999}) {
      for (double cap : {1.0, 0.5, 0.1, 0.02, 0.003}) {
        if (cap * keys < 1) continue;  // CapShares' precondition
        ExpectSameFit(keys, gini, cap);
      }
    }
  }
}

TEST(GiniFitTest, RandomTargetsAndCapsAreTheBisectionsToTheBit) {
  std::mt19937_64 draws(17);
  std::uniform_int_distribution<uint32_t> keys_draw(2, 3000);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 200; ++i) {
    uint32_t keys = keys_draw(draws);
    double gini = unit(draws);
    // Caps from 1/keys (every key at the cap) up to none.
    double cap = i % 4 == 0 ? 1.0 : 1.0 / keys + unit(draws) * (1 - 1.0 / keys) * unit(draws);
    ExpectSameFit(keys, gini, cap);
  }
}

}  // namespace
}  // namespace kvroute::models
