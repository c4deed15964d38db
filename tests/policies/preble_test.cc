// The preble policy and its pieces (policies.md §5): the global prefix tree,
// the windowed cost by value, E2 exploit/explore, rebalancing moves and
// replication on hand-built overloads (the TTFT overload detector has its
// own file, preble_overload_test.cc). A fixed-time cost model makes every
// prefill of up to one token budget take exactly 10 ms.
#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "models/workload.h"
#include "policies/cost_estimate.h"
#include "policies/preble_histogram.h"
#include "policies/preble_tree.h"
#include "policies/registry.h"

namespace kvroute::policies {
namespace {

using sim::FromSeconds;

// Blocks first+1 .. first+n: prompts share a prefix iff they share values.
std::vector<uint64_t> Blocks(uint64_t first, int n) {
  std::vector<uint64_t> chain;
  for (int i = 1; i <= n; ++i) chain.push_back(first + static_cast<uint64_t>(i));
  return chain;
}
std::vector<uint64_t> Join(std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(PrebleTreeTest, InsertSplitsWhereAPromptDivergesAndFindsExactPaths) {
  PrebleTree tree;
  std::vector<PrebleTree::Split> splits;
  const uint32_t first = tree.Insert(Join(Blocks(0, 8), Blocks(100, 1)), &splits);
  EXPECT_TRUE(splits.empty());
  EXPECT_EQ(tree.blocks(first), 9u);
  EXPECT_TRUE(tree.large(first));

  const uint32_t second = tree.Insert(Join(Blocks(0, 8), Blocks(200, 2)), &splits);
  ASSERT_EQ(splits.size(), 1u);
  const uint32_t shared = splits[0].parent;
  EXPECT_EQ(splits[0].child, first);
  EXPECT_EQ(tree.parent(first), shared);
  EXPECT_EQ(tree.parent(second), shared);
  EXPECT_EQ(tree.blocks(shared), 8u);
  EXPECT_TRUE(tree.large(shared));
  EXPECT_EQ(tree.blocks(first), 1u);
  EXPECT_EQ(tree.context_so_far(first), 8u);
  EXPECT_FALSE(tree.large(first));
  EXPECT_EQ(tree.context_blocks(second), 10u);

  EXPECT_EQ(tree.Find(Blocks(0, 8)), shared);
  EXPECT_EQ(tree.Find(Join(Blocks(0, 8), Blocks(100, 1))), first);
  EXPECT_EQ(tree.Find(Blocks(0, 5)), PrebleTree::kNone);  // ends inside a node
  // A prompt ending inside a node splits it and is the new parent.
  splits.clear();
  const uint32_t prefix = tree.Insert(Blocks(0, 5), &splits);
  EXPECT_EQ(tree.blocks(prefix), 5u);
  EXPECT_EQ(tree.parent(shared), prefix);
  EXPECT_EQ(tree.Find(Blocks(0, 5)), prefix);
}

TEST(PrebleTreeTest, AMoveReallocatesTheSubtreeButNotLaterNodesOrLaterWrites) {
  PrebleTree tree;
  std::vector<PrebleTree::Split> splits;
  const uint32_t top = tree.Insert(Blocks(0, 8), &splits);
  const uint32_t old_leaf = tree.Insert(Join(Blocks(0, 8), Blocks(100, 1)), &splits);
  const uint32_t written_leaf = tree.Insert(Join(Blocks(0, 8), Blocks(200, 1)), &splits);
  tree.Allocate(old_leaf, 0);
  tree.Allocate(old_leaf, 2);
  tree.Allocate(top, 0);
  tree.MoveSubtree(top, 1);
  tree.Allocate(written_leaf, 2);  // written after the move: {1, 2}
  const uint32_t new_leaf = tree.Insert(Join(Blocks(0, 8), Blocks(300, 1)), &splits);
  EXPECT_EQ(std::vector<uint32_t>(tree.allocation(top).begin(), tree.allocation(top).end()),
            std::vector<uint32_t>{1});
  EXPECT_EQ(
      std::vector<uint32_t>(tree.allocation(old_leaf).begin(), tree.allocation(old_leaf).end()),
      std::vector<uint32_t>{1});
  EXPECT_EQ(std::vector<uint32_t>(tree.allocation(written_leaf).begin(),
                                  tree.allocation(written_leaf).end()),
            (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(tree.allocation(new_leaf).empty());
  // A split above a moved-into node keeps what it resolves to.
  splits.clear();
  tree.Insert(Join(Blocks(0, 4), Blocks(400, 1)), &splits);
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_TRUE(tree.allocated(splits[0].parent, 1));
  EXPECT_TRUE(tree.allocated(old_leaf, 1));
  EXPECT_FALSE(tree.allocated(old_leaf, 0));
}

TEST(PrebleTreeTest, SoleRefsNamesTheOneGpuHoldingReferencesOrSaysSeveral) {
  PrebleTree tree;
  std::vector<PrebleTree::Split> splits;
  const uint32_t node = tree.Insert(Blocks(0, 4), &splits);
  auto sole = [&] { return std::pair(tree.sole_refs(node).gpu, tree.sole_refs(node).count); };
  EXPECT_EQ(sole().second, 0u);
  tree.AddRefs(node, 2, +3);
  EXPECT_EQ(sole(), std::pair(2u, 3u));
  tree.AddRefs(node, 1, +1);  // two GPUs: the counts spill
  EXPECT_EQ(sole().second, PrebleTree::kSeveral);
  tree.AddRefs(node, 2, -3);  // one again, held in the spilled list
  EXPECT_EQ(sole(), std::pair(1u, 1u));
  tree.AddRefs(node, 1, -1);
  EXPECT_EQ(sole().second, 0u);
}

// Cost model fixture: one 10 ms iteration per prefill chunk.
class PrebleCostTest : public ::testing::Test {
 protected:
  PrebleCostTest()
      : fixed_(FromSeconds(0.01)),
        estimator_(Context()),
        histogram_(tree_, estimator_, 2, FromSeconds(180), 16) {}

  PolicyContext Context() {
    PolicyContext ctx;
    ctx.num_replicas = 2;
    ctx.cost_model = &fixed_;
    return ctx;
  }
  // Inserts, allocates to `gpu`, references and records like the policy.
  uint32_t Route(const std::vector<uint64_t>& chain, uint32_t gpu, double t, uint32_t decode) {
    splits_.clear();
    const uint32_t leaf = tree_.Insert(chain, &splits_);
    for (const auto& split : splits_) histogram_.OnSplit(split);
    uint32_t important = leaf;
    while (!tree_.large(important)) important = tree_.parent(important);
    histogram_.AllocatePath(leaf, gpu);
    histogram_.AddRefsOnPath(leaf, gpu, +1);
    histogram_.Record(FromSeconds(t), important, leaf, decode);
    return leaf;
  }
  // Window nodes allocated to the GPU, by a scan of the tree.
  uint32_t WindowNodesOn(uint32_t gpu) const {
    uint32_t n = 0;
    for (uint32_t node = 0; node < tree_.size(); ++node) {
      n += histogram_.InWindow(node) && tree_.allocated(node, gpu) ? 1 : 0;
    }
    return n;
  }

  models::FixedCostModel fixed_;
  PrebleTree tree_;
  CostEstimator estimator_;
  PrebleHistogram histogram_;
  std::vector<PrebleTree::Split> splits_;
};

TEST_F(PrebleCostTest, CostIsMissTimesCountTimesPrefillSharedPlusInFlightDecode) {
  const uint32_t a = Route(Blocks(0, 4), 0, 0, 100);
  // One request, all 64 tokens missed: share 1·1·0.01/1, decode 1·100·0.02.
  EXPECT_NEAR(histogram_.Cost(0, 0.02), 0.01 + 2.0, 1e-9);
  EXPECT_NEAR(histogram_.Cost(1, 0.02), 0, 1e-12);
  EXPECT_NEAR(histogram_.Cost(0, 0.02, /*busy_only=*/true), 0, 1e-12);

  // A longer prompt on GPU 1: a is now allocated to both; hit 64 of 64 + 96
  // prompt tokens, miss 0.6; share 0.6·2·0.01/2; decode length the last one's.
  const uint32_t b = Route(Join(Blocks(0, 4), Blocks(50, 2)), 1, 1, 50);
  EXPECT_EQ(tree_.parent(b), a);
  EXPECT_EQ(histogram_.Count(a), 2u);
  EXPECT_FALSE(histogram_.InWindow(b));
  EXPECT_NEAR(histogram_.Cost(0, 0.02), 0.006 + 1 * 50 * 0.02, 1e-9);
  EXPECT_NEAR(histogram_.Cost(1, 0.02), 0.006 + 1 * 50 * 0.02, 1e-9);
  EXPECT_NEAR(histogram_.Cost(1, 0.02, true), 0.006 + 1 * 50 * 0.02, 1e-9);
  EXPECT_NEAR(histogram_.NodeCost(a, 1, 0.1), 0.006 + 1 * 50 * 0.1, 1e-9);

  // The first request completes on GPU 0: its decode term leaves.
  histogram_.AddRefsOnPath(a, 0, -1);
  EXPECT_NEAR(histogram_.Cost(0, 0.02), 0.006, 1e-9);
}

TEST_F(PrebleCostTest, EntriesExpireAfterTheWindowAndAnEmptiedNodeLosesItsAllocation) {
  const uint32_t a = Route(Blocks(0, 4), 0, 0, 0);
  Route(Join(Blocks(0, 4), Blocks(50, 2)), 0, 1, 0);
  ASSERT_NEAR(histogram_.Cost(0, 0), 0.6 * 2 * 0.01, 1e-9);

  // At 180.5 s the entry of 0 s is out: count 1, hit 64 of 96, miss 1/3.
  const uint32_t c = Route(Blocks(1000, 4), 1, 180.5, 0);
  EXPECT_EQ(histogram_.Count(a), 1u);
  EXPECT_NEAR(histogram_.Cost(0, 0), 0.01 / 3, 1e-9);
  EXPECT_NEAR(histogram_.Cost(1, 0), 0.01, 1e-9);

  // At 181.5 s a leaves the window and its allocation is reset.
  Route(Blocks(2000, 4), 1, 181.5, 0);
  EXPECT_FALSE(histogram_.InWindow(a));
  EXPECT_TRUE(tree_.allocation(a).empty());
  EXPECT_NEAR(histogram_.Cost(0, 0), 0, 1e-12);
  EXPECT_EQ(WindowNodesOn(0), 0u);
  EXPECT_TRUE(histogram_.InWindow(c));
  EXPECT_EQ(WindowNodesOn(1), 2u);
}

// The policy through its interface: requests carry hand-made block chains.
class PreblePolicyTest : public ::testing::Test {
 protected:
  void Make(uint32_t replicas, std::vector<ParamValue> params = {}) {
    const PolicyInfo& info = FindPolicy("preble");
    PolicyContext ctx;
    ctx.num_replicas = replicas;
    ctx.cost_model = &fixed_;
    policy_ = info.factory(ResolveParams(info, params), ctx);
    loads_.assign(replicas, models::ReplicaLoad{});
  }
  models::Request Prompt(const std::vector<uint64_t>& chain, uint32_t output = 10) {
    models::Request r;
    r.id = next_id_++;
    *r.hashes.mutable_prompt() = chain;
    r.prompt_tokens = static_cast<uint32_t>(chain.size() * 16);
    r.output_tokens = output;
    return r;
  }
  uint32_t Route(const models::Request& r, double t) {
    uint32_t pick = policy_->Route(r, ClusterView{loads_, FromSeconds(t)});
    policy_->OnDispatch(r, pick, FromSeconds(t));
    return pick;
  }
  double Stat(const std::string& name) const {
    for (const auto& [n, v] : policy_->Stats()) {
      if (n == name) return v;
    }
    return -1;
  }

  models::FixedCostModel fixed_{FromSeconds(0.01)};
  std::unique_ptr<Policy> policy_;
  std::vector<models::ReplicaLoad> loads_;
  uint64_t next_id_ = 1;
};

TEST_F(PreblePolicyTest, ExploitsTheAllocationWhenCachedExceedsMissedElseExploresTheCheapest) {
  Make(3);
  EXPECT_EQ(Route(Prompt(Blocks(0, 8)), 0), 0u);    // all costs 0: the lowest
  EXPECT_EQ(Route(Prompt(Blocks(500, 8)), 0), 1u);  // explore: 0 now costs more
  // 1 missed block after 8 cached: exploit a's allocation {0}, though 2 is idle.
  EXPECT_EQ(Route(Prompt(Join(Blocks(0, 8), Blocks(100, 1))), 1), 0u);
  // 9 missed after 8 cached: explore, the idle replica.
  EXPECT_EQ(Route(Prompt(Join(Blocks(0, 8), Blocks(200, 9))), 2), 2u);
  // Exploit with the allocated replica down: explore among the healthy.
  loads_[0].healthy = false;
  EXPECT_NE(Route(Prompt(Join(Blocks(0, 8), Blocks(300, 1))), 3), 0u);
  EXPECT_NEAR(Stat("preble_exploit_share"), 2.0 / 5, 1e-12);
}

TEST_F(PreblePolicyTest, ExploitPicksTheCheapestWithinTheAllocationNotOutsideIt) {
  Make(3);
  ASSERT_EQ(Route(Prompt(Blocks(0, 8)), 0), 0u);
  // 8 missed after 8 cached is explore: the idle replica 1 joins a's path.
  const models::Request second = Prompt(Join(Blocks(0, 8), Blocks(100, 8)));
  ASSERT_EQ(Route(second, 1), 1u);
  policy_->OnComplete(second, 1, FromSeconds(2));
  // a's allocation is {0, 1}, both carry its prefill share; 0 also a request
  // in flight. Replica 2, idle, is outside the allocation.
  EXPECT_EQ(Route(Prompt(Join(Blocks(0, 8), Blocks(200, 1))), 3), 1u);
}

// References count from routing, as in Preble's scheduler: a request still in
// the serving front end weighs on its replica until it completes, or until
// the simulation says it will never reach the replica's queue.
TEST_F(PreblePolicyTest, ARequestWeighsFromRoutingUntilItCompletesOrIsNotDispatched) {
  Make(3);
  const models::Request a = Prompt(Blocks(0, 8));
  ASSERT_EQ(policy_->Route(a, ClusterView{loads_, FromSeconds(0)}), 0u);  // not yet dispatched
  const models::Request second = Prompt(Join(Blocks(0, 8), Blocks(100, 8)));
  ASSERT_EQ(Route(second, 1), 1u);
  policy_->OnComplete(second, 1, FromSeconds(2));
  // a's allocation is {0, 1}; a, routed but not yet queued, weighs on 0.
  const models::Request third = Prompt(Join(Blocks(0, 8), Blocks(200, 1)));
  EXPECT_EQ(Route(third, 3), 1u);
  policy_->OnComplete(third, 1, FromSeconds(4));
  EXPECT_EQ(Stat("preble_tracked_requests"), 1);  // a
  // a never reaches its queue: 0 and 1 cost the same again, the lower wins.
  policy_->OnNotDispatched(a, 0, FromSeconds(5));
  EXPECT_EQ(Stat("preble_tracked_requests"), 0);
  EXPECT_EQ(Route(Prompt(Join(Blocks(0, 8), Blocks(300, 1))), 6), 0u);
  EXPECT_EQ(Stat("preble_tracked_requests"), 1);
}

// Four keys, each with a system prompt of 8 blocks and two requests whose
// output lengths are 10·k, all on replica 0 while replica 1 is down; then 1
// comes back and a new key's request triggers a rebalance.
TEST_F(PreblePolicyTest, RebalancingMovesTheCheapestNodesWhileLMinusCIsAtLeastSPlusC) {
  Make(2, {{"rebalance_after_per_replica", 0, ""}});
  loads_[1].healthy = false;
  double t = 0;
  for (uint64_t k = 1; k <= 4; ++k) {
    const auto system = Blocks(k * 1000, 8);
    Route(Prompt(Join(system, Blocks(k * 1000 + 100, 1))), t += 1);
    Route(Prompt(Join(system, Blocks(k * 1000 + 200, 1)), static_cast<uint32_t>(10 * k)), t += 1);
  }
  loads_[1].healthy = true;
  // Key k's node: miss 1 − 128/288, count 2, 10 ms prefill; 2 requests in
  // flight × 10k tokens × 0.15 s: c_k ≈ 0.011 + 3k. L = Σ ≈ 30.04, S = 0:
  // move c_1 (27.03 ≥ 3.01), c_2 (21.02 ≥ 9.02), not c_3 (12.01 < 18.03).
  EXPECT_EQ(Route(Prompt(Blocks(9000, 8)), t += 1), 1u);
  EXPECT_EQ(Stat("preble_moves"), 2);
  // Key 3 stayed; keys 1 and 2 follow their nodes. (Each of these routes
  // rebalances again: the moved nodes' requests in flight stay on replica 0
  // but no longer count there, so more nodes move from 0 to 1.)
  auto next = [&](uint64_t k) {
    return Route(Prompt(Join(Blocks(k * 1000, 8), Blocks(k * 1000 + 300, 1))), t += 1);
  };
  EXPECT_EQ(next(3), 0u);
  EXPECT_EQ(next(1), 1u);
  EXPECT_EQ(next(2), 1u);
}

TEST_F(PreblePolicyTest, RebalancingOffNeverMoves) {
  Make(2, {{"rebalance_after_per_replica", 0, ""}, {"rebalancing", 0, "", "off"}});
  loads_[1].healthy = false;
  for (uint64_t k = 1; k <= 4; ++k) {
    Route(Prompt(Join(Blocks(k * 1000, 8), Blocks(k * 1000 + 100, 1))), 1);
    Route(Prompt(Join(Blocks(k * 1000, 8), Blocks(k * 1000 + 200, 1))), 1);
  }
  loads_[1].healthy = true;
  Route(Prompt(Blocks(9000, 8)), 2);
  EXPECT_EQ(Stat("preble_moves"), 0);
}

// One hot key on replica 0 whose TTFT doubled between the halves of the
// window is replicated to the idle replica; without the rise it is not.
class PrebleReplicationTest : public PreblePolicyTest,
                              public ::testing::WithParamInterface<double> {};

TEST_P(PrebleReplicationTest, AHotNodeIsReplicatedOnlyWhenItsTtftIsOverloaded) {
  const double late_ttft = GetParam();
  Make(2, {{"rebalance_after_per_replica", 0, ""}});
  loads_[1].healthy = false;
  const auto system = Blocks(1000, 8);
  std::vector<models::Request> r;
  for (int i = 0; i < 3; ++i) {
    r.push_back(Prompt(Join(system, Blocks(2000 + 10 * i, 1))));
    r[i].arrival = FromSeconds(i);
    ASSERT_EQ(Route(r[i], i), 0u);
  }
  policy_->OnFirstToken(r[1], 0, FromSeconds(1.1));  // TTFT 0.1 s
  policy_->OnComplete(r[1], 0, FromSeconds(10));
  policy_->OnFirstToken(r[2], 0, FromSeconds(2 + late_ttft));
  policy_->OnComplete(r[2], 0, FromSeconds(150));
  loads_[1].healthy = true;
  // A new key explores to replica 1 and the hot node is the only candidate.
  EXPECT_EQ(Route(Prompt(Blocks(9000, 8)), 160), 1u);
  const bool overloaded = late_ttft >= 0.2;
  EXPECT_EQ(Stat("preble_replications"), overloaded ? 1 : 0);
  EXPECT_EQ(Stat("preble_moves"), 0);
  // Replicated, the key's requests may go to either replica: replica 0 has
  // one request in flight, replica 1 none, so the next goes to 1.
  EXPECT_EQ(Route(Prompt(Join(system, Blocks(3000, 1))), 161), overloaded ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(LateTtft, PrebleReplicationTest, ::testing::Values(0.15, 0.5));

TEST_F(PreblePolicyTest, SameRequestsAndCompletionsSameChoices) {
  auto run = [this] {
    Make(4, {{"rebalance_after_per_replica", 1, ""}});
    models::WorkloadConfig config;
    config.keys = 50;
    models::WorkloadGenerator workload(config, 3, 40, FromSeconds(1e6));
    std::vector<uint32_t> picks;
    std::vector<std::pair<models::Request, uint32_t>> live;
    models::Request request;
    for (int i = 0; i < 2000 && workload.Next(&request); ++i) {
      const sim::Time now = request.arrival;
      picks.push_back(policy_->Route(request, ClusterView{loads_, now}));
      policy_->OnDispatch(request, picks.back(), now);
      policy_->OnFirstToken(request, picks.back(), now + FromSeconds(0.2 + 0.01 * (i % 7)));
      live.emplace_back(request, picks.back());
      if (live.size() > 30) {
        policy_->OnComplete(live.front().first, live.front().second, now + FromSeconds(1));
        live.erase(live.begin());
      }
    }
    picks.push_back(static_cast<uint32_t>(Stat("preble_moves")));
    return picks;
  };
  std::vector<uint32_t> first = run();
  EXPECT_EQ(first, run());
}

}  // namespace
}  // namespace kvroute::policies
