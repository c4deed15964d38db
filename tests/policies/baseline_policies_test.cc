#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "policies/bounded_load.h"
#include "policies/hash_ring.h"
#include "policies/load_balancing.h"
#include "policies/registry.h"

namespace kvroute::policies {
namespace {

std::unique_ptr<Policy> MakeBaseline(const std::string& name, uint32_t replicas,
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
  auto policy = MakeBaseline("round_robin", 3);
  std::vector<models::ReplicaLoad> loads(3);
  ClusterView view{loads, 0};
  std::vector<uint32_t> seq;
  for (int i = 0; i < 5; ++i) seq.push_back(policy->Route(KeyRequest(0), view));
  EXPECT_EQ(seq, (std::vector<uint32_t>{0, 1, 2, 0, 1}));

  auto skipping = MakeBaseline("round_robin", 3);
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
  auto policy = MakeBaseline("sticky", 8);
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

// buraksezer/consistent TestConsistentAverageLoadKeepsFraction at load 1.25
// (policies.md §7): (partitions, members) -> average load bound.
TEST(BoundedLoadTest, PeerCapacityValues) {
  EXPECT_EQ(BoundedLoadCapacity(3, 8, 0.25), 1u);
  EXPECT_EQ(BoundedLoadCapacity(5, 10, 0.25), 1u);
  EXPECT_EQ(BoundedLoadCapacity(9, 10, 0.25), 2u);
  EXPECT_EQ(BoundedLoadCapacity(23, 8, 0.25), 4u);
}

// The bound C = ceil((1+eps)(m+1)/n) holds at every dispatch, with one hot key
// pushing the walk around the ring and requests completing at random.
TEST(ChwblTest, NeverExceedsItsBound) {
  for (double epsilon : {0.0, 0.25, 1.0}) {
    auto policy = MakeBaseline("chwbl", 8, {{"epsilon", epsilon, ""}});
    std::vector<models::ReplicaLoad> loads(8);
    loads[5].healthy = false;
    ClusterView view{loads, 0};
    std::vector<uint64_t> in_flight(8, 0);
    std::vector<models::Request> live;
    sim::RandomStream rng(5, "test.chwbl");
    for (int i = 0; i < 20000; ++i) {
      models::Request request = KeyRequest(rng.Uniform() < 0.5 ? 0 : rng.UniformInt(50));
      uint64_t m = 0;
      for (uint32_t r = 0; r < 8; ++r) m += loads[r].healthy ? in_flight[r] : 0;
      uint64_t bound = BoundedLoadCapacity(m + 1, 7, epsilon);
      uint32_t r = policy->Route(request, view);
      ASSERT_TRUE(loads[r].healthy);
      ASSERT_LE(in_flight[r] + 1, bound) << "epsilon " << epsilon << " request " << i;
      policy->OnDispatch(request, r, 0);
      ++in_flight[r];
      live.push_back(request);
      live.back().session = r;  // remember the replica
      while (!live.empty() && rng.Uniform() < 0.5) {
        size_t k = rng.UniformInt(live.size());
        uint32_t done = static_cast<uint32_t>(live[k].session);
        policy->OnComplete(live[k], done, 0);
        --in_flight[done];
        live[k] = live.back();
        live.pop_back();
      }
    }
  }
}

// lafikl/consistent TestGetLeast: 100 keys over 2 hosts, none above the bound.
TEST(ChwblTest, TwoHostsHundredKeys) {
  auto policy = MakeBaseline("chwbl", 2);
  std::vector<models::ReplicaLoad> loads(2);
  ClusterView view{loads, 0};
  std::vector<uint64_t> placed(2, 0);
  for (uint32_t key = 0; key < 100; ++key) {
    uint32_t r = policy->Route(KeyRequest(key), view);
    policy->OnDispatch(KeyRequest(key), r, 0);
    ++placed[r];
  }
  EXPECT_LE(std::max(placed[0], placed[1]), BoundedLoadCapacity(100, 2, 0.25));
}

TEST(ChwblTest, LightlyLoadedKeysStayHome) {
  auto chwbl = MakeBaseline("chwbl", 8);
  auto sticky = MakeBaseline("sticky", 8);
  std::vector<models::ReplicaLoad> loads(8);
  ClusterView view{loads, 0};
  for (uint32_t key = 0; key < 100; ++key) {
    EXPECT_EQ(chwbl->Route(KeyRequest(key), view), sticky->Route(KeyRequest(key), view));
  }
}

models::Request PrefixRequest(std::vector<uint64_t> blocks, uint32_t tenant = 0) {
  models::Request r;
  *r.hashes.mutable_prompt() = std::move(blocks);
  r.tenant = tenant;
  return r;
}

TEST(PrefixHashTest, OnlyTheFirstNBlocksMatter) {
  auto policy = MakeBaseline("prefix_hash", 16, {{"blocks", 2, ""}});
  std::vector<models::ReplicaLoad> loads(16);
  ClusterView view{loads, 0};
  uint32_t home = policy->Route(PrefixRequest({11, 22, 33}), view);
  EXPECT_EQ(policy->Route(PrefixRequest({11, 22, 99, 98}), view), home);
  std::set<uint32_t> seen;
  for (uint64_t second = 1; second < 200; ++second) {
    seen.insert(policy->Route(PrefixRequest({11, second * 7919}), view));
  }
  EXPECT_GT(seen.size(), 8u);  // the second block changes the owner
}

TEST(PrefixHashTest, TenantHashingSeparatesTenantsWithOnePrefix) {
  auto policy = MakeBaseline("prefix_hash", 16, {{"blocks", 2, ""}, {"hash_by", 0, "", "tenant"}});
  std::vector<models::ReplicaLoad> loads(16);
  ClusterView view{loads, 0};
  std::set<uint32_t> seen;
  for (uint32_t tenant = 0; tenant < 100; ++tenant) {
    uint32_t r = policy->Route(PrefixRequest({5, 6}, tenant), view);
    EXPECT_EQ(policy->Route(PrefixRequest({5, 6, 7}, tenant), view), r);
    seen.insert(r);
  }
  EXPECT_GT(seen.size(), 8u);
}

TEST(SessionAffinityTest, TurnsOfASessionShareAReplica) {
  auto policy = MakeBaseline("session_affinity", 8);
  std::vector<models::ReplicaLoad> loads(8);
  ClusterView view{loads, 0};
  models::Request turn;
  turn.session = 1234;
  uint32_t home = policy->Route(turn, view);
  for (uint32_t key = 0; key < 20; ++key) {
    turn.key = key;  // content changes, the session does not
    EXPECT_EQ(policy->Route(turn, view), home);
  }
}

TEST(LeastLoadedTest, EachMeasurePicksItsMinimum) {
  std::vector<models::ReplicaLoad> loads(3);
  loads[0].waiting = 1;
  loads[0].prefill_tokens = 9000;
  loads[1].running = 3;
  loads[1].decode_tokens = 30;
  loads[2].waiting = 2;
  loads[2].prefill_tokens = 100;
  ClusterView view{loads, 0};
  EXPECT_EQ(MakeBaseline("least_loaded", 3)->Route(KeyRequest(0), view), 0u);
  EXPECT_EQ(
      MakeBaseline("least_loaded", 3, {{"measure", 0, "", "tokens"}})->Route(KeyRequest(0), view),
      1u);
  // 100 prompt tokens of prefill cost less than 10 decode iterations.
  EXPECT_EQ(
      MakeBaseline("least_loaded", 3, {{"measure", 0, "", "work"}})->Route(KeyRequest(0), view),
      2u);
}

TEST(LeastLoadedTest, TiesAreBrokenUniformly) {
  auto policy = MakeBaseline("least_loaded", 4);
  std::vector<models::ReplicaLoad> loads(4);
  loads[2].running = 1;
  ClusterView view{loads, 0};
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 3000; ++i) ++counts[policy->Route(KeyRequest(0), view)];
  EXPECT_EQ(counts[2], 0);
  for (int r : {0, 1, 3}) EXPECT_NEAR(counts[r], 1000, 120);  // ±4.5 sd
}

}  // namespace
}  // namespace kvroute::policies
