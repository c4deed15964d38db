// llmd's precise prefix scorer over KV tiers (llm-d-kv-cache's
// LongestPrefixScorer with its default medium weights): the prefix run goes
// on through blocks only host memory holds, each worth host_tier_weight, then
// through those only the local SSD holds, each worth storage_tier_weight.
#include <gtest/gtest.h>

#include <vector>

#include "policies/registry.h"

namespace kvroute::policies {
namespace {

// Replica r holds the first hbm_[r] blocks of every chain in HBM, the next
// host_[r] in host memory and the next ssd_[r] on its SSD.
class TieredOracle : public CacheOracle {
 public:
  TieredOracle(std::vector<uint32_t> hbm, std::vector<uint32_t> host,
               std::vector<uint32_t> ssd = {0, 0})
      : hbm_(std::move(hbm)), host_(std::move(host)), ssd_(std::move(ssd)) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return std::min<uint32_t>(hbm_[replica], static_cast<uint32_t>(chain.size()));
  }
  uint32_t HostTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                          uint32_t from) const override {
    EXPECT_EQ(from, CachedPrefixBlocks(replica, chain));  // the run continues after HBM's
    const uint32_t end =
        std::min<uint32_t>(hbm_[replica] + host_[replica], static_cast<uint32_t>(chain.size()));
    return end > from ? end - from : 0;
  }
  uint32_t StorageTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                             uint32_t from) const override {
    // The run continues after HBM's and host memory's.
    EXPECT_EQ(from, CachedPrefixBlocks(replica, chain) +
                        HostTierBlocks(replica, chain, CachedPrefixBlocks(replica, chain)));
    const uint32_t end = std::min<uint32_t>(hbm_[replica] + host_[replica] + ssd_[replica],
                                            static_cast<uint32_t>(chain.size()));
    return end > from ? end - from : 0;
  }

 private:
  std::vector<uint32_t> hbm_, host_, ssd_;
};

uint32_t Route(double host_weight, const TieredOracle& oracle, double* score,
               double storage_weight = 0.3) {
  const PolicyInfo& info = FindPolicy("llmd");
  PolicyContext ctx;
  ctx.num_replicas = 2;
  auto policy = info.factory(ResolveParams(info, {{"prefix_cache", 1, "", "precise"},
                                                  {"host_tier_weight", host_weight, ""},
                                                  {"storage_tier_weight", storage_weight, ""}}),
                             ctx);
  models::Request request;
  request.prompt_tokens = 5 * 16;
  request.output_tokens = 1;
  for (uint64_t b = 0; b < 5; ++b) request.hashes.mutable_prompt()->push_back(100 + b);
  std::vector<models::ReplicaLoad> loads(2);  // equal queues and KV use
  const uint32_t chosen = policy->Route(request, ClusterView{loads, 0, &oracle});
  *score = policy->LastRoute().score;
  return chosen;
}

// Replica 0 holds 4 of 5 blocks in HBM; replica 1 holds 2 in HBM and the
// next 3 in host memory. Prefix scores: 4/5 against (2 + 3w)/5.
TEST(LlmdTiersTest, HostBlocksCountAtTheirWeight) {
  const TieredOracle oracle({4, 2}, {0, 3});
  double score = 0;
  // w = 0.8 (llm-d's cpu default): 0.88 beats 0.8. Score: 3 x prefix + 2 x
  // queue (1) + 2 x free KV (1).
  EXPECT_EQ(Route(0.8, oracle, &score), 1u);
  EXPECT_NEAR(score, 3 * (2 + 3 * 0.8) / 5 + 4, 1e-12);
  // w = 0.5: 0.7 loses to 0.8.
  EXPECT_EQ(Route(0.5, oracle, &score), 0u);
  EXPECT_NEAR(score, 3 * 0.8 + 4, 1e-12);
  // w = 0: host memory is ignored, as a router indexing GPU blocks only.
  EXPECT_EQ(Route(0, oracle, &score), 0u);
}

// Replica 0 holds 3 of 5 blocks in HBM; replica 1 holds 1 in HBM, 1 in host
// memory and the last 3 on its SSD. Prefix scores: 3/5 against
// (1 + 0.8 + 3s)/5.
TEST(LlmdTiersTest, SsdBlocksCountAtTheirWeightAfterHostMemorys) {
  const TieredOracle oracle({3, 1}, {0, 1}, {0, 3});
  double score = 0;
  // s = 0.3 (llm-d's storage default): 2.7/5 loses to 3/5.
  EXPECT_EQ(Route(0.8, oracle, &score), 0u);
  EXPECT_NEAR(score, 3 * 3.0 / 5 + 4, 1e-12);
  // s = 0.5: 3.3/5 beats 3/5, by the SSD blocks alone.
  EXPECT_EQ(Route(0.8, oracle, &score, 0.5), 1u);
  EXPECT_NEAR(score, 3 * (1 + 0.8 + 3 * 0.5) / 5 + 4, 1e-12);
  // s = 0: the SSD is ignored, replica 1 scores 1.8/5.
  EXPECT_EQ(Route(0.8, oracle, &score, 0), 0u);
}

TEST(LlmdTiersTest, TheDefaultsAreLlmdsCpuAndStorageWeights) {
  const PolicyInfo& info = FindPolicy("llmd");
  const Params params = ResolveParams(info, {});
  EXPECT_DOUBLE_EQ(params.Get("host_tier_weight"), 0.8);
  EXPECT_DOUBLE_EQ(params.Get("storage_tier_weight"), 0.3);
}

}  // namespace
}  // namespace kvroute::policies
