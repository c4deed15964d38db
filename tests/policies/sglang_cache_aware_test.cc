// SGLang's cache_aware router and its tree against sgl-router's unit-test
// values (policies.md §1), with one block standing for one character.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policies/block_radix_tree.h"
#include "policies/registry.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

// A string's chained block hashes, one block per character.
std::vector<uint64_t> TextChain(const std::string& text) {
  std::vector<uint64_t> chain;
  uint64_t h = 0;
  for (unsigned char c : text) chain.push_back(h = sim::ChainBlockHash(h, c));
  return chain;
}

// tree.rs test_get_used_size_per_tenant.
TEST(BlockRadixTreeTest, SizePerTenantCountsSharedPrefixOnce) {
  BlockRadixTree tree(3);
  tree.Insert(TextChain("hello"), 0, 0);
  tree.Insert(TextChain("world"), 0, 0);
  tree.Insert(TextChain("hello"), 1, 0);
  tree.Insert(TextChain("help"), 1, 0);
  tree.Insert(TextChain("ni"), 2, 0);  // "你好": two characters
  EXPECT_EQ(tree.TenantSize(0), 10u);
  EXPECT_EQ(tree.TenantSize(1), 6u);
  EXPECT_EQ(tree.TenantSize(2), 2u);
  EXPECT_EQ(tree.SmallestTenant(), 2u);
}

// tree.rs test_cold_start.
TEST(BlockRadixTreeTest, ColdStartMatchesNothing) {
  BlockRadixTree tree(2);
  BlockRadixTree::Match match = tree.PrefixMatch(TextChain("hello"), 0);
  EXPECT_EQ(match.blocks, 0u);
  EXPECT_EQ(match.tenant, BlockRadixTree::kNoTenant);
}

// tree.rs test_prefix_match_tenant.
TEST(BlockRadixTreeTest, TenantMatchFollowsOnlyThatTenant) {
  BlockRadixTree tree(3);
  for (const char* s : {"hello", "help"}) tree.Insert(TextChain(s), 0, 0);
  for (const char* s : {"hello", "hello world", "helicopter"}) tree.Insert(TextChain(s), 1, 0);
  EXPECT_EQ(tree.TenantMatch(0, TextChain("hello world")), 5u);  // "hello"
  EXPECT_EQ(tree.TenantMatch(0, TextChain("helicopter")), 3u);   // "hel"
  EXPECT_EQ(tree.TenantMatch(1, TextChain("help")), 3u);         // "hel"
  EXPECT_EQ(tree.TenantMatch(2, TextChain("hello")), 0u);        // ""
  BlockRadixTree::Match match = tree.PrefixMatch(TextChain("hello world"), 0);
  EXPECT_EQ(match.blocks, 11u);
  EXPECT_EQ(match.tenant, 1u);  // the only owner of the deepest block
}

// tree.rs test_simple_eviction: t2's older "hello" goes, t1's stays.
TEST(BlockRadixTreeTest, EvictionRemovesEachTenantsOldestLeaves) {
  BlockRadixTree tree(2);
  tree.Insert(TextChain("hello"), 0, 1);
  tree.Insert(TextChain("hello"), 1, 2);
  tree.Insert(TextChain("world"), 1, 3);
  tree.EvictBySize(5);
  EXPECT_EQ(tree.TenantSize(0), 5u);
  EXPECT_EQ(tree.TenantSize(1), 5u);
  BlockRadixTree::Match match = tree.PrefixMatch(TextChain("world"), 4);
  EXPECT_EQ(match.blocks, 5u);
  EXPECT_EQ(match.tenant, 1u);
  EXPECT_EQ(tree.TenantMatch(1, TextChain("hello")), 0u);
}

// A partly evicted path keeps its root side: leaves go first.
TEST(BlockRadixTreeTest, EvictionKeepsPrefixesClosed) {
  BlockRadixTree tree(1);
  tree.Insert(TextChain("abcdef"), 0, 1);
  tree.EvictBySize(4);
  EXPECT_EQ(tree.TenantMatch(0, TextChain("abcdef")), 4u);
}

class SglangCacheAwareTest : public ::testing::Test {
 protected:
  std::unique_ptr<Policy> Make(std::vector<ParamValue> params, uint32_t replicas = 2) {
    const PolicyInfo& info = FindPolicy("sglang_cache_aware");
    PolicyContext ctx;
    ctx.num_replicas = replicas;
    return info.factory(ResolveParams(info, params), ctx);
  }
  models::Request Prompt(const std::string& text) {
    models::Request r;
    *r.hashes.mutable_prompt() = TextChain(text);
    r.prompt_tokens = static_cast<uint32_t>(text.size());
    return r;
  }
};

// cache_aware.rs test_cache_aware_with_imbalanced_load: config (0.5, 5, 2.0,
// 0, 10000), w1 in-flight 20, w2 0: every selection goes to w2.
TEST_F(SglangCacheAwareTest, ImbalancedLoadGoesToTheShortestQueue) {
  auto policy = Make({{"cache_threshold", 0.5, ""},
                      {"balance_abs_threshold", 5, ""},
                      {"balance_rel_threshold", 2.0, ""},
                      {"eviction_interval_s", 0, ""},
                      {"max_tree_size", 10000, ""}});
  std::vector<models::ReplicaLoad> loads(2);
  for (int i = 0; i < 20; ++i) policy->OnDispatch(Prompt("x"), 0, 0);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(policy->Route(Prompt("request " + std::to_string(i)), ClusterView{loads, 0}), 1u);
    EXPECT_STREQ(policy->LastRoute().reason, "least_load");
    EXPECT_EQ(policy->LastRoute().score, 0);  // w2's in-flight count
  }
}

TEST_F(SglangCacheAwareTest, FollowsAMatchAboveTheThresholdElseTheSmallestTenant) {
  auto policy = Make({}, 3);
  std::vector<models::ReplicaLoad> loads(3);
  ClusterView view{loads, 0};
  // Cold: the smallest tenant, lowest index on ties; then the tree grows there.
  EXPECT_EQ(policy->Route(Prompt("system prompt A"), view), 0u);
  EXPECT_EQ(policy->Route(Prompt("other B"), view), 1u);
  // 15 of 16 blocks match on replica 0: rate 0.94 > 0.5.
  EXPECT_EQ(policy->Route(Prompt("system prompt AX"), view), 0u);
  EXPECT_STREQ(policy->LastRoute().reason, "prefix_match");
  EXPECT_DOUBLE_EQ(policy->LastRoute().score, 15.0 / 16);
  // 2 of 6 blocks match ("ot"): 0.33 <= 0.5, so the smallest tenant, 2.
  EXPECT_EQ(policy->Route(Prompt("otters"), view), 2u);
  EXPECT_STREQ(policy->LastRoute().reason, "smallest_cache");
  EXPECT_DOUBLE_EQ(policy->LastRoute().score, 2.0 / 6);
}

TEST_F(SglangCacheAwareTest, UnhealthyPickFallsBackToTheFirstHealthy) {
  auto policy = Make({}, 3);
  std::vector<models::ReplicaLoad> loads(3);
  EXPECT_EQ(policy->Route(Prompt("abcdef"), ClusterView{loads, 0}), 0u);
  loads[0].healthy = loads[1].healthy = false;
  EXPECT_EQ(policy->Route(Prompt("abcdefg"), ClusterView{loads, 0}), 2u);
  EXPECT_STREQ(policy->LastRoute().reason, "fallback");
}

// The exact cache stands in for the tree when asked.
class ThirdReplicaHoldsAllOracle : public CacheOracle {
 public:
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return replica == 2 ? static_cast<uint32_t>(chain.size()) : 0;
  }
};

TEST_F(SglangCacheAwareTest, ExactCacheStateReadsTheReplicas) {
  auto policy = Make({{"cache_state", 0, "", "exact"}}, 3);
  std::vector<models::ReplicaLoad> loads(3);
  loads[0].kv_utilization = 0.5;
  loads[1].kv_utilization = 0.1;
  ThirdReplicaHoldsAllOracle oracle;
  EXPECT_EQ(policy->Route(Prompt("anything"), ClusterView{loads, 0, &oracle}), 2u);
  EXPECT_EQ(policy->Route(Prompt("anything"), ClusterView{loads, 0, nullptr}), 2u);  // smallest KV
  loads[2].kv_utilization = 0.9;
  EXPECT_EQ(policy->Route(Prompt("anything"), ClusterView{loads, 0, nullptr}), 1u);
}

}  // namespace
}  // namespace kvroute::policies
