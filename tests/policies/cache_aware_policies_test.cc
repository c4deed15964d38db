// Dynamo and llm-d pieces against their peers' unit-test values
// (shared/reference/policies.md §2-3), and the router-side indexes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "policies/dynamo_selector.h"
#include "policies/llmd_scorers.h"
#include "policies/registry.h"
#include "policies/router_prefix_index.h"
#include "sim/core/hashing.h"
#include "tests/policies/chi_square.h"

namespace kvroute::policies {
namespace {

uint32_t Select(std::vector<double> logits, double temperature = 0, uint64_t seed = 1) {
  sim::RandomStream rng(seed, "test.dynamo");
  std::vector<double> scratch(logits.size());
  return DynamoSelect(logits, temperature, rng, scratch);
}

// selector.rs tests at temperature 0.
TEST(DynamoSelectorTest, LeastLogitWins) {
  EXPECT_EQ(Select({5, 3, 7, 3.5}), 1u);
  EXPECT_EQ(Select({-1, -5, 0}), 1u);
}

TEST(DynamoSelectorTest, TiesGoToEitherMinimum) {
  std::set<uint32_t> seen;
  for (uint64_t seed = 1; seed <= 40; ++seed) seen.insert(Select({5, 3, 3, 7}, 0, seed));
  EXPECT_EQ(seen, (std::set<uint32_t>{1, 2}));
}

TEST(DynamoSelectorTest, TemperatureSamplesTheSoftmax) {
  std::vector<double> logits = {10, 12, 20, 14};
  double t = 0.5;
  std::vector<double> p;
  double sum = 0;
  for (double l : logits) sum += std::exp(-(l - 10) / (10 * t));
  for (double l : logits) p.push_back(std::exp(-(l - 10) / (10 * t)) / sum);
  sim::RandomStream rng(4, "test.dynamo");
  std::vector<double> scratch(4);
  std::vector<uint64_t> counts(4, 0);
  for (int i = 0; i < 20000; ++i) ++counts[DynamoSelect(logits, t, rng, scratch)];
  EXPECT_TRUE(FitsProbabilities(counts, p));
}

// Chained hashes of a token-block sequence, so equal prefixes share hashes.
std::vector<uint64_t> Chain(std::vector<uint64_t> blocks) {
  std::vector<uint64_t> chain;
  uint64_t h = 0;
  for (uint64_t b : blocks) chain.push_back(h = sim::Combine(h, b + 1));
  return chain;
}

// radix_tree.rs test_clear_all_blocks: w0 stores [0,1,3], w1 stores [0,2,3].
TEST(RouterPrefixIndexTest, DynamoClearAllBlocks) {
  RouterPrefixIndex index(2, 100, 0);
  index.Record(0, Chain({0, 1, 3}), 0);
  index.Record(1, Chain({0, 2, 3}), 0);
  EXPECT_EQ(index.Depth(0, Chain({0}), 0), 1u);
  EXPECT_EQ(index.Depth(1, Chain({0}), 0), 1u);
  index.Clear(0);
  EXPECT_EQ(index.Depth(0, Chain({0, 2}), 0), 0u);
  EXPECT_EQ(index.Depth(1, Chain({0, 2}), 0), 2u);
  EXPECT_EQ(index.Depth(1, Chain({0, 1, 3}), 0), 1u);
}

// plugin_test.go: "aaaaaa" (two block hashes) routed to pod1 and to pod3 as
// prefill; then "aaaabbbb" matches 1 of 2 blocks on pod1 and pod3, 0 on pod2.
TEST(RouterPrefixIndexTest, LlmdApproximatePrefixMatch) {
  RouterPrefixIndex index(3, 100, 0);
  index.Record(0, Chain({'a', 'A'}), 0);
  index.Record(2, Chain({'a', 'A'}), 0);
  std::vector<uint32_t> counts(3);
  index.WalkCounts(Chain({'a', 'b'}), 0, counts);
  EXPECT_EQ(counts, (std::vector<uint32_t>{1, 0, 1}));
}

// queuedepth/queue.go tests.
TEST(LlmdScorersTest, QueueScorer) {
  std::vector<double> scores(3);
  std::vector<uint8_t> all = {1, 1, 1};
  LlmdQueueScores(std::vector<double>{10, 5, 0}, all, scores);
  EXPECT_EQ(scores, (std::vector<double>{0, 0.5, 1}));
  std::vector<double> two(2);
  LlmdQueueScores(std::vector<double>{5, 5}, std::vector<uint8_t>{1, 1}, two);
  EXPECT_EQ(two, (std::vector<double>{1, 1}));
}

// loadaware/load_aware.go test with threshold 10.
TEST(LlmdScorersTest, LoadAwareScorer) {
  EXPECT_DOUBLE_EQ(LlmdLoadAwareScore(2, 10), 0.4);
  EXPECT_DOUBLE_EQ(LlmdLoadAwareScore(0, 10), 0.5);
  EXPECT_DOUBLE_EQ(LlmdLoadAwareScore(15, 10), 0);
}

std::unique_ptr<Policy> Make(const std::string& name, std::vector<ParamValue> params = {}) {
  const PolicyInfo& info = FindPolicy(name);
  PolicyContext ctx;
  ctx.num_replicas = 4;
  ctx.seed = 2;
  ctx.kv_blocks_per_replica = 1000;
  return info.factory(ResolveParams(info, params), ctx);
}

models::Request Prompt(uint64_t system, uint32_t blocks) {
  models::Request r;
  r.prompt_tokens = blocks * 16 + 5;
  std::vector<uint64_t> content;
  for (uint32_t b = 0; b < blocks; ++b) content.push_back(system * 1000 + b);
  *r.hashes.mutable_prompt() = Chain(content);
  return r;
}

// With equal loads the router's own history pulls a repeated prompt home.
TEST(CacheAwarePoliciesTest, RouterHistoryBringsARepeatHome) {
  for (auto [name, params] : std::vector<std::pair<std::string, std::vector<ParamValue>>>{
           {"llmd", {}}, {"dynamo_kv", {{"cache_state", 0, "", "router"}}}}) {
    auto policy = Make(name, params);
    std::vector<models::ReplicaLoad> loads(4);
    ClusterView view{loads, 0};
    for (uint64_t system = 0; system < 20; ++system) {
      models::Request request = Prompt(system, 40);
      uint32_t first = policy->Route(request, view);
      policy->OnDispatch(request, first, 0);
      EXPECT_EQ(policy->Route(request, view), first) << name << " system " << system;
    }
  }
}

TEST(CacheAwarePoliciesTest, DynamoRouterIndexForgetsAfterTheTtl) {
  auto policy = Make("dynamo_kv", {{"cache_state", 0, "", "router"}, {"router_ttl_s", 10, ""}});
  std::vector<models::ReplicaLoad> loads(4);
  models::Request request = Prompt(1, 40);
  ClusterView now{loads, 0};
  uint32_t first = policy->Route(request, now);
  policy->OnDispatch(request, first, 0);
  policy->OnComplete(request, first, 0);
  std::set<uint32_t> later;
  for (int i = 0; i < 40; ++i) {
    later.insert(policy->Route(request, ClusterView{loads, sim::FromSeconds(11)}));
  }
  EXPECT_EQ(later.size(), 4u);  // a cold prompt ties everywhere
}

}  // namespace
}  // namespace kvroute::policies
