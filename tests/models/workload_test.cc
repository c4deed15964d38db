#include "models/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/alias_table.h"
#include "models/length_distribution.h"

namespace kvroute::models {
namespace {

WorkloadConfig SmallConfig() {
  WorkloadConfig c;
  c.keys = 50;
  c.rates.zipf_s = 1.0;
  c.system_tokens = 100;  // 6 full blocks; block 7 straddles into unique tokens
  c.new_tokens = LengthDistribution::Uniform(10, 300);
  c.output_tokens = LengthDistribution::Uniform(1, 50);
  return c;
}

TEST(WorkloadTest, SameSeedSameRequests) {
  WorkloadGenerator a(SmallConfig(), 3, 10, sim::FromSeconds(100));
  WorkloadGenerator b(SmallConfig(), 3, 10, sim::FromSeconds(100));
  Request x, y;
  while (a.Next(&x)) {
    ASSERT_TRUE(b.Next(&y));
    EXPECT_EQ(x.arrival, y.arrival);
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.hashes.prompt(), y.hashes.prompt());
    EXPECT_EQ(x.output_tokens, y.output_tokens);
  }
  EXPECT_FALSE(b.Next(&y));
}

// Common random numbers: doubling the load halves every arrival time and
// changes nothing else.
TEST(WorkloadTest, LoadScalesArrivalTimesOnly) {
  WorkloadGenerator slow(SmallConfig(), 3, 10, sim::FromSeconds(1000));
  WorkloadGenerator fast(SmallConfig(), 3, 20, sim::FromSeconds(500));
  Request x, y;
  int n = 0;
  while (slow.Next(&x)) {
    ASSERT_TRUE(fast.Next(&y));
    EXPECT_NEAR(static_cast<double>(y.arrival), x.arrival / 2.0, 1.0);
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.prompt_tokens, y.prompt_tokens);
    ++n;
  }
  EXPECT_GT(n, 9000);
}

TEST(WorkloadTest, PoissonArrivalsHaveTheConfiguredRate) {
  WorkloadGenerator g(SmallConfig(), 8, 25, sim::FromSeconds(4000));
  Request r;
  int n = 0;
  while (g.Next(&r)) ++n;
  EXPECT_NEAR(n, 100000, 1000);  // sd = sqrt(100000) = 316
}

TEST(WorkloadTest, KeysShareTheirSystemPromptBlocksOnly) {
  WorkloadGenerator g(SmallConfig(), 1, 10, sim::FromSeconds(1000));
  Request first, r;
  do {  // a first prompt with a seventh full block, the one straddling into unique tokens
    ASSERT_TRUE(g.Next(&first));
  } while (first.hashes.prompt().size() <= 6);
  bool saw_same_key = false, saw_other_key = false, saw_straddling = false;
  while (g.Next(&r) && !(saw_same_key && saw_other_key && saw_straddling)) {
    ASSERT_GE(r.hashes.prompt().size(), 6u);
    if (r.key == first.key) {
      saw_same_key = true;
      for (int j = 0; j < 6; ++j) EXPECT_EQ(r.hashes.prompt()[j], first.hashes.prompt()[j]);
      // The straddling block is unique; a prompt of fewer than 112 tokens has
      // no seventh full block, and its hashes end at the sixth.
      if (r.hashes.prompt().size() > 6) {
        EXPECT_NE(r.hashes.prompt()[6], first.hashes.prompt()[6]);
        saw_straddling = true;
      }
    } else {
      saw_other_key = true;
      EXPECT_NE(r.hashes.prompt()[0], first.hashes.prompt()[0]);
    }
  }
  EXPECT_TRUE(saw_same_key && saw_other_key && saw_straddling);
}

TEST(WorkloadTest, PromptHasOneHashPerFullBlock) {
  WorkloadGenerator g(SmallConfig(), 2, 10, sim::FromSeconds(100));
  Request r;
  while (g.Next(&r)) {
    EXPECT_EQ(r.hashes.prompt().size(), r.prompt_tokens / 16);
    EXPECT_GE(r.output_tokens, 1u);
  }
}

TEST(WorkloadTest, ZipfSharesSumToOneAndFollowThePowerLaw) {
  auto shares = ZipfShares(1000, 1.2);
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1.0, 1e-12);
  EXPECT_NEAR(shares[0] / shares[9], std::pow(10.0, 1.2), 1e-9);
}

TEST(WorkloadTest, KeyFrequenciesMatchTheirShares) {
  WorkloadConfig c = SmallConfig();
  WorkloadGenerator g(c, 4, 100, sim::FromSeconds(2000));
  std::vector<double> counts(c.keys, 0);
  Request r;
  double n = 0;
  while (g.Next(&r)) ++counts[r.key], ++n;
  for (uint32_t k : {0u, 1u, 10u}) {
    double expected = g.key_shares()[k];
    EXPECT_NEAR(counts[k] / n, expected, 4 * std::sqrt(expected * (1 - expected) / n)) << k;
  }
}

TEST(AliasTableTest, DrawsFollowTheWeights) {
  std::vector<double> weights{1, 0, 3, 6};
  AliasTable table(weights);
  sim::RandomStream rng(1, "test.alias");
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 100000; ++i) ++counts[table.Draw(rng)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0], 10000, 400);
  EXPECT_NEAR(counts[2], 30000, 600);
  EXPECT_NEAR(counts[3], 60000, 600);
}

TEST(LengthDistributionTest, LognormalHasItsMedianAndClamps) {
  LengthDistribution d{.kind = LengthDistribution::Kind::kLognormal,
                       .min = 5,
                       .max = 2000,
                       .median = 200,
                       .sigma = 1.0};
  sim::RandomStream rng(2, "test.lengths");
  std::vector<uint32_t> draws;
  for (int i = 0; i < 20001; ++i) draws.push_back(d.Draw(rng));
  std::nth_element(draws.begin(), draws.begin() + 10000, draws.end());
  EXPECT_NEAR(draws[10000], 200, 8);
  EXPECT_EQ(*std::max_element(draws.begin(), draws.end()), 2000u);
  EXPECT_GE(*std::min_element(draws.begin(), draws.end()), 5u);
}

TEST(LengthDistributionTest, UniformCoversBothEnds) {
  LengthDistribution d = LengthDistribution::Uniform(3, 5);
  sim::RandomStream rng(2, "test.uniform_lengths");
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 30000; ++i) ++counts[d.Draw(rng)];
  EXPECT_EQ(counts[0] + counts[1] + counts[2], 0);
  for (int v = 3; v <= 5; ++v) EXPECT_NEAR(counts[v], 10000, 400);
}

}  // namespace
}  // namespace kvroute::models
