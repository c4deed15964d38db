#include "models/key_rates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/workload.h"

namespace kvroute::models {
namespace {

// The paper's main workload (seed 003 §5.1): 128,824 keys, Gini 0.756, no key
// above 0.3%, about 4% of keys carrying about 47% of requests.
TEST(KeyRatesTest, GiniFitMeetsThePapersProfile) {
  std::vector<double> shares = GiniFitShares(128824, 0.756, 0.003);
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-9);
  EXPECT_NEAR(Gini(shares), 0.756, 1e-3);
  EXPECT_LE(*std::max_element(shares.begin(), shares.end()), 0.003 + 1e-12);
  EXPECT_NEAR(TopShare(shares, 0.04), 0.47, 0.04);
}

TEST(KeyRatesTest, CapBindsWhereTheUncappedProfileWouldExceedIt) {
  std::vector<double> shares = GiniFitShares(1000, 0.8, 0.01);
  EXPECT_NEAR(Gini(shares), 0.8, 1e-3);
  EXPECT_NEAR(shares[0], 0.01, 1e-12);  // uncapped, the top key of Gini 0.8 takes ~9%
}

TEST(KeyRatesTest, UnreachableGiniIsAnError) {
  EXPECT_THROW(GiniFitShares(100, 0.9, 0.011), std::invalid_argument);
}

// Requests drawn from the generator: with 2M requests over 500 keys (4,000 per
// key on average) Poisson noise adds about 0.005 to the Gini; ±0.02 is 4x that.
TEST(KeyRatesTest, GeneratedRequestsHaveTheTargetGiniAndRespectTheCap) {
  WorkloadConfig c;
  c.keys = 500;
  c.rates.kind = KeyRateConfig::Kind::kGini;
  c.rates.gini = 0.6;
  c.rates.max_share = 0.02;
  c.system_tokens = 0;
  c.new_tokens = LengthDistribution::Fixed(1);
  WorkloadGenerator g(c, 5, 1000, sim::FromSeconds(2000));
  std::vector<double> counts(c.keys, 0);
  Request r;
  double n = 0;
  while (g.Next(&r)) ++counts[r.key], ++n;
  EXPECT_NEAR(Gini(counts), 0.6, 0.02);
  // The capped key's share, 4 sd of a binomial proportion above the cap at most.
  EXPECT_LE(*std::max_element(counts.begin(), counts.end()) / n,
            0.02 + 4 * std::sqrt(0.02 * 0.98 / n));
}

TEST(KeyRatesTest, ActiveSetAndWhales) {
  KeyRateConfig c;
  c.kind = KeyRateConfig::Kind::kLognormal;
  c.sigma = 1.0;
  c.active_keys = 100;
  c.whales = {0.25, 0.05};
  std::vector<double> shares = KeyShares(1000, c);
  EXPECT_DOUBLE_EQ(shares[0], 0.25);
  EXPECT_DOUBLE_EQ(shares[1], 0.05);
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
  EXPECT_GT(shares[99], 0);
  EXPECT_EQ(shares[100], 0);
  // The non-whale keys keep their relative rates.
  std::vector<double> plain = LognormalShares(1000, 1.0);
  EXPECT_NEAR(shares[10] / shares[20], plain[10] / plain[20], 1e-9);
}

TEST(KeyRatesTest, TenantsGroupKeys) {
  WorkloadConfig c;
  c.keys = 50;
  c.tenants = 4;
  WorkloadGenerator g(c, 1, 10, sim::FromSeconds(100));
  Request r;
  while (g.Next(&r)) EXPECT_EQ(r.tenant, r.key % 4);
}

}  // namespace
}  // namespace kvroute::models
