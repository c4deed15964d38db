#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "policies/hash_ring.h"
#include "policies/load_balancing.h"
#include "policies/registry.h"

namespace kvroute::policies {
namespace {

std::unique_ptr<Policy> Make(const std::string& name, uint32_t replicas,
                             std::vector<ParamValue> params = {}) {
  const PolicyInfo& info = FindPolicy(name);
  PolicyContext ctx;
  ctx.num_replicas = replicas;
  ctx.seed = 1;
  ctx.key_rates.assign(10, 1.0);
  return info.factory(ResolveParams(info, params), ctx);
}

models::Request KeyRequest(uint32_t key) {
  models::Request r;
  r.key = key;
  return r;
}

// SGLang round_robin.rs test values (shared/reference/policies.md §1).
TEST(RoundRobinTest, CyclesThroughHealthyReplicas) {
  auto policy = Make("round_robin", 3);
  std::vector<models::ReplicaLoad> loads(3);
  ClusterView view{loads, 0};
  std::vector<uint32_t> seq;
  for (int i = 0; i < 5; ++i) seq.push_back(policy->Route(KeyRequest(0), view));
  EXPECT_EQ(seq, (std::vector<uint32_t>{0, 1, 2, 0, 1}));

  auto skipping = Make("round_robin", 3);
  loads[1].healthy = false;
  seq.clear();
  for (int i = 0; i < 4; ++i) seq.push_back(skipping->Route(KeyRequest(0), view));
  EXPECT_EQ(seq, (std::vector<uint32_t>{0, 2, 0, 2}));
}

TEST(PowerOfTwoChoicesTest, PicksTheLessLoadedOfTwo) {
  // With two replicas both are always sampled, so the lighter always wins.
  std::vector<models::ReplicaLoad> loads(2);
  loads[0].decode_tokens = 500;
  loads[1].decode_tokens = 100;
  sim::RandomStream rng(1, "test.p2c");
  ClusterView view{loads, 0};
  for (int i = 0; i < 100; ++i) EXPECT_EQ(PowerOfTwoChoices(view, rng), 1u);
}

TEST(PowerOfTwoChoicesTest, NeverPicksTheHeaviestOfThree) {
  std::vector<models::ReplicaLoad> loads(3);
  loads[0].prefill_tokens = 10;
  loads[1].prefill_tokens = 1000;
  loads[2].prefill_tokens = 20;
  sim::RandomStream rng(2, "test.p2c");
  ClusterView view{loads, 0};
  std::map<uint32_t, int> counts;
  for (int i = 0; i < 3000; ++i) ++counts[PowerOfTwoChoices(view, rng)];
  EXPECT_EQ(counts[1], 0);
  // Replica 0 loses only to nothing: it wins whenever sampled (2/3 of pairs).
  EXPECT_NEAR(counts[0], 2000, 120);
}

TEST(StickyTest, SameKeySameReplicaAndFailover) {
  auto policy = Make("sticky", 8);
  std::vector<models::ReplicaLoad> loads(8);
  ClusterView view{loads, 0};
  uint32_t home = policy->Route(KeyRequest(42), view);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(policy->Route(KeyRequest(42), view), home);
  loads[home].healthy = false;
  uint32_t fallback = policy->Route(KeyRequest(42), view);
  EXPECT_NE(fallback, home);
  loads[home].healthy = true;
  EXPECT_EQ(policy->Route(KeyRequest(42), view), home);
}

TEST(HashRingTest, VirtualNodesSpreadKeysEvenly) {
  HashRing ring(10, 100);
  EXPECT_EQ(ring.points(), 1000u);
  std::vector<int> counts(10, 0);
  for (uint64_t k = 0; k < 100000; ++k) ++counts[ring.Successor(sim::Mix64(k))];
  // With 100 virtual nodes a replica's arc is within ~±30% of 1/10.
  for (int c : counts) EXPECT_NEAR(c, 10000, 3000);
}

TEST(HashRingTest, RemovingAReplicaMovesOnlyItsKeys) {
  HashRing ring(10, 100);
  std::vector<models::ReplicaLoad> loads(10);
  ClusterView view{loads, 0};
  std::vector<uint32_t> before;
  for (uint64_t k = 0; k < 5000; ++k) before.push_back(ring.SuccessorHealthy(sim::Mix64(k), view));
  loads[3].healthy = false;
  for (uint64_t k = 0; k < 5000; ++k) {
    uint32_t after = ring.SuccessorHealthy(sim::Mix64(k), view);
    if (before[k] != 3)
      EXPECT_EQ(after, before[k]);
    else
      EXPECT_NE(after, 3u);
  }
}

}  // namespace
}  // namespace kvroute::policies
