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

// A tenant's share sums its keys': key 0 is the busiest key, tenant 1 the
// busiest tenant.
TEST(KeyRatesTest, TenantSharesSumTheirKeys) {
  std::vector<double> keys = {0.30, 0.25, 0.05, 0.25, 0.05, 0.10};
  std::vector<double> two = TenantShares(keys, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_DOUBLE_EQ(two[0], 0.30 + 0.05 + 0.05);
  EXPECT_DOUBLE_EQ(two[1], 0.25 + 0.25 + 0.10);
  std::vector<double> four = TenantShares(keys, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_DOUBLE_EQ(four[0], 0.30 + 0.05);
  EXPECT_DOUBLE_EQ(four[1], 0.25 + 0.10);
  EXPECT_DOUBLE_EQ(four[2], 0.05);
  EXPECT_DOUBLE_EQ(four[3], 0.25);
  // More tenants than keys: only the tenants that have a key; 0: one per key.
  EXPECT_EQ(TenantShares(keys, 100), keys);
  EXPECT_EQ(TenantShares(keys, 0), keys);
}

// The generator's tenant shares are its key shares grouped by tenant: whales
// 0.05, 0.05, 0.4 on keys 0-2, Zipf(1) weights 1/4, 1/5, 1/6 for the other
// 0.5 on keys 3-5.
TEST(KeyRatesTest, GeneratorTenantShares) {
  WorkloadConfig c;
  c.keys = 6;
  c.tenants = 2;
  c.rates.whales = {0.05, 0.05, 0.4};
  WorkloadGenerator g(c, 1, 10, sim::FromSeconds(100));
  const double rest = 1.0 / 4 + 1.0 / 5 + 1.0 / 6;
  std::vector<double> shares = g.tenant_shares();
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_NEAR(shares[0], 0.05 + 0.4 + 0.5 * (1.0 / 5) / rest, 1e-12);
  EXPECT_NEAR(shares[1], 0.05 + 0.5 * (1.0 / 4) / rest + 0.5 * (1.0 / 6) / rest, 1e-12);
}

}  // namespace
}  // namespace kvroute::models
