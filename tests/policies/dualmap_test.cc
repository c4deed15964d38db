// DualMap (policies.md §6): the adaptive key, the two candidates, the choice
// by cache reuse, the SLO switch and hotspot rebalancing, on hand-built
// clusters whose expected outcomes are worked out in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "policies/dual_hash_rings.h"
#include "policies/prefix_hotness.h"
#include "policies/registry.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

// A chain of `blocks` chained hashes; chains with the same `shared` tag share
// their first `shared_blocks` blocks.
std::vector<uint64_t> DualmapChain(uint32_t blocks, uint64_t tag, uint32_t shared_blocks = 0,
                                   uint64_t shared = 7) {
  std::vector<uint64_t> chain;
  uint64_t h = 1;
  for (uint32_t j = 0; j < blocks; ++j) {
    uint64_t content = j < shared_blocks ? sim::Combine(shared, j) : sim::Combine(tag + 1000, j);
    chain.push_back(h = sim::ChainBlockHash(h, content));
  }
  return chain;
}

// --- the adaptive key ---------------------------------------------------------

PrefixHotness::Config Hotness(uint32_t replicas, double window_s = 1e6) {
  return {.blocks_per_level = 2,
          .extend_share = 2.0 / replicas,
          .shrink_share = 1.0 / replicas,
          .window = sim::FromSeconds(window_s)};
}

TEST(PrefixHotnessTest, KeyIsTheShortestPrefixNotSplit) {
  PrefixHotness hot(Hotness(4));  // extend above 0.5, shrink below 0.25
  // Unknown prefixes are not split: the key is the first prefix block.
  std::vector<uint64_t> a = DualmapChain(5, 1);  // levels: blocks 2, 4, 5
  EXPECT_EQ(hot.Peek(a).levels, 1u);
  EXPECT_EQ(hot.Peek(a).hash, a[1]);
  // The first request is all the traffic: share 1 > 0.5 at every level, so
  // it walks to its deepest prefix, which ends with the prompt's last block.
  PrefixHotness::Key key = hot.Observe(a, 0);
  EXPECT_EQ(key.levels, 3u);
  EXPECT_EQ(key.hash, a[4]);
  EXPECT_TRUE(hot.Extended(a[1]));
  EXPECT_TRUE(hot.Extended(a[3]));
  EXPECT_EQ(hot.Observe(std::span<const uint64_t>{}, 0).levels, 0u);  // no full block, no key
}

TEST(PrefixHotnessTest, HotPrefixExtendsAndShrinksWithHysteresis) {
  PrefixHotness hot(Hotness(4));
  uint64_t other = 100;
  auto observe_others = [&](int n) {
    for (int i = 0; i < n; ++i) hot.Observe(DualmapChain(2, other++), 0);
  };
  const std::vector<uint64_t> p1 = DualmapChain(4, 1, 2),
                              p2 = DualmapChain(4, 2, 2);  // share prefix P
  const uint64_t prefix = p1[1];
  ASSERT_EQ(p2[1], prefix);
  // P: 1 of 1 > 0.5, split: p1 is keyed by its 2-block prefix.
  EXPECT_EQ(hot.Observe(p1, 0).levels, 2u);
  // Three other prompts: P holds 1 of 4. Observing p2 makes it 2 of 5 = 0.4,
  // between the thresholds: P stays split.
  observe_others(3);
  EXPECT_EQ(hot.Observe(p2, 0).levels, 2u);
  EXPECT_DOUBLE_EQ(hot.Share(prefix), 0.4);
  // Four more: P is 2 of 9; with p1 again 3 of 10 = 0.3 >= 0.25, still split.
  observe_others(4);
  EXPECT_EQ(hot.Observe(p1, 0).levels, 2u);
  // Three more: 4 of 14 = 0.29 still split; six more: 5 of 21 = 0.24 merges.
  observe_others(3);
  EXPECT_EQ(hot.Observe(p1, 0).levels, 2u);
  observe_others(6);
  PrefixHotness::Key key = hot.Observe(p2, 0);
  EXPECT_EQ(key.levels, 1u);
  EXPECT_EQ(key.hash, prefix);
  EXPECT_FALSE(hot.Extended(prefix));
  EXPECT_DOUBLE_EQ(hot.Share(prefix), 5.0 / 21.0);
  // Merged, it needs more than half of the traffic to split again: 6 of 22 does not.
  EXPECT_EQ(hot.Observe(p1, 0).levels, 1u);
}

TEST(PrefixHotnessTest, SharesDecayWithTheWindow) {
  PrefixHotness hot(Hotness(4, /*window_s=*/10));
  const std::vector<uint64_t> a = DualmapChain(2, 1), b = DualmapChain(2, 2);
  hot.Observe(a, 0);
  // One window later a counts 1/e against b's 1.
  hot.Observe(b, sim::FromSeconds(10));
  EXPECT_NEAR(hot.Share(a[1]), 1 / (1 + std::exp(1.0)), 1e-12);
  // Many windows later (rescaled on the way) a has all but vanished.
  hot.Observe(b, sim::FromSeconds(200));
  EXPECT_LT(hot.Share(a[1]), 1e-6);
  EXPECT_EQ(hot.tracked_prefixes(), 1u);  // a was forgotten
}

TEST(PrefixHotnessTest, PeekDoesNotCount) {
  PrefixHotness hot(Hotness(4));
  const std::vector<uint64_t> a = DualmapChain(2, 1), b = DualmapChain(2, 2);
  hot.Observe(a, 0);
  hot.Observe(b, 0);
  for (int i = 0; i < 10; ++i) hot.Peek(a);
  EXPECT_DOUBLE_EQ(hot.Share(a[1]), 0.5);
}

// --- the two candidates ------------------------------------------------------

std::vector<models::ReplicaLoad> Loads(uint32_t n) { return std::vector<models::ReplicaLoad>(n); }

TEST(DualHashRingsTest, TwoDistinctHealthyCandidatesSpreadOverTheCluster) {
  DualHashRings rings(4, 100);
  auto loads = Loads(4);
  loads[2].healthy = false;
  ClusterView view{loads, 0};
  std::map<uint32_t, int> first, second;
  for (uint64_t k = 0; k < 3000; ++k) {
    DualHashRings::Candidates c = rings.Pick(sim::Mix64(k), view);
    ASSERT_NE(c.first, c.second);
    ASSERT_NE(c.first, 2u);
    ASSERT_NE(c.second, 2u);
    ++first[c.first];
    ++second[c.second];
    DualHashRings::Candidates again = rings.Pick(sim::Mix64(k), view);
    ASSERT_EQ(again.first, c.first);
    ASSERT_EQ(again.second, c.second);
  }
  for (uint32_t r : {0u, 1u, 3u}) {
    EXPECT_GT(first[r], 700) << r;  // about 1000 each
    EXPECT_GT(second[r], 700) << r;
  }
}

TEST(DualHashRingsTest, OneHealthyReplicaIsBothCandidates) {
  DualHashRings rings(4, 100);
  auto loads = Loads(4);
  loads[0].healthy = loads[1].healthy = loads[3].healthy = false;
  DualHashRings::Candidates c = rings.Pick(42, ClusterView{loads, 0});
  EXPECT_EQ(c.first, 2u);
  EXPECT_EQ(c.second, 2u);
}

// --- the policy --------------------------------------------------------------

class FakeCache : public CacheOracle {
 public:
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    auto it = blocks_.find(replica);
    return it == blocks_.end() ? 0 : std::min<uint32_t>(it->second, chain.size());
  }
  std::map<uint32_t, uint32_t> blocks_;
};

class FakeQueues : public QueueView {
 public:
  uint32_t QueuedCount(uint32_t replica) const override {
    auto it = queues_.find(replica);
    return it == queues_.end() ? 0 : static_cast<uint32_t>(it->second.size());
  }
  const models::Request* Queued(uint32_t replica, uint32_t i) const override {
    return &queues_.at(replica)[i];
  }
  std::map<uint32_t, std::vector<models::Request>> queues_;
};

// Four replicas; the cost model clears 1000 prefill tokens a second (1 s per
// 1000-token iteration), so a 1 s SLO is 1000 pending prefill tokens.
class DualMapTest : public ::testing::Test {
 protected:
  std::unique_ptr<Policy> Make(std::vector<ParamValue> params = {}) {
    const PolicyInfo& info = FindPolicy("dualmap");
    params.push_back({"ttft_slo_s", 1, ""});
    PolicyContext ctx;
    ctx.num_replicas = 4;
    ctx.cost_model = &cost_;
    ctx.max_num_batched_tokens = 1000;
    return info.factory(ResolveParams(info, params), ctx);
  }
  std::unique_ptr<Policy> MakeExact(std::vector<ParamValue> params = {}) {
    params.push_back({"cache_state", 0, "", "exact"});
    return Make(std::move(params));
  }

  // A request of `blocks` full blocks (at most 32: one prefix block, so the
  // key is its last block hash) whose candidates are {a, b} in either order.
  models::Request WithCandidates(uint32_t a, uint32_t b, uint32_t blocks = 25) {
    auto loads = Loads(4);
    for (uint64_t tag = next_tag_;; ++tag) {
      models::Request r;
      *r.hashes.mutable_prompt() = DualmapChain(blocks, tag);
      DualHashRings::Candidates c = rings_.Pick(r.hashes.prompt().back(), ClusterView{loads, 0});
      if ((c.first == a && c.second == b) || (c.first == b && c.second == a)) {
        next_tag_ = tag + 1;
        r.id = tag;
        r.prompt_tokens = blocks * 16;
        r.output_tokens = 1;
        return r;
      }
    }
  }

  DualHashRings::Candidates CandidatesOf(const models::Request& r) {
    auto loads = Loads(4);
    return rings_.Pick(r.hashes.prompt().back(), ClusterView{loads, 0});
  }

  models::FixedCostModel cost_{sim::FromSeconds(1)};
  DualHashRings rings_{4, 100};  // the policy's rings at the default virtual_nodes
  uint64_t next_tag_ = 1;
};

TEST_F(DualMapTest, CandidateWithMoreCacheReuseWinsOverALighterOne) {
  auto policy = MakeExact();
  models::Request r = WithCandidates(0, 1);
  auto [c1, c2] = CandidatesOf(r);
  auto loads = Loads(4);
  loads[c2].prefill_tokens = 500;  // busier, but within the SLO
  FakeCache cache;
  cache.blocks_[c1] = 2;
  cache.blocks_[c2] = 5;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c2);
  EXPECT_STREQ(policy->LastRoute().reason, "prefix_match");
  EXPECT_EQ(policy->LastRoute().score, 500 + (25 - 5) * 16);  // queued + uncached tokens
}

TEST_F(DualMapTest, EqualReuseGoesToTheLessLoadedThenToRingOne) {
  auto policy = MakeExact();
  models::Request r = WithCandidates(2, 3);
  auto [c1, c2] = CandidatesOf(r);
  auto loads = Loads(4);
  FakeCache cache;
  cache.blocks_[c1] = cache.blocks_[c2] = 3;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c1);
  loads[c1].decode_tokens = 10;  // owes more tokens
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c2);
  EXPECT_STREQ(policy->LastRoute().reason, "least_load");
  // Replicas that are not candidates never get it, however idle.
  loads[c1].decode_tokens = 400;
  loads[c2].decode_tokens = 300;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c2);
}

TEST_F(DualMapTest, RouterModeLearnsReuseFromItsOwnDispatches) {
  auto policy = Make();
  models::Request r = WithCandidates(0, 3);
  auto [c1, c2] = CandidatesOf(r);
  auto loads = Loads(4);
  policy->OnDispatch(r, c2, 0);
  loads[c2].prefill_tokens = 300;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0}), c2);
}

// The pick (more reuse) would pass 1000 pending tokens: 800 queued + 400 of
// this request (25 blocks, 5 cached -> 320 to compute) = 1120 > 1000, so the
// other candidate (0 + 400) takes it. If the other is worse still, it stays.
TEST_F(DualMapTest, SloSwitchTakesTheOtherCandidateWhenItPredictsLess) {
  auto policy = MakeExact({{"rebalance", 0, "", "off"}});
  models::Request r = WithCandidates(1, 2);
  auto [c1, c2] = CandidatesOf(r);
  FakeCache cache;
  cache.blocks_[c2] = 5;
  auto loads = Loads(4);
  loads[c2].prefill_tokens = 800;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c1);
  EXPECT_STREQ(policy->LastRoute().reason, "slo_switch");
  EXPECT_EQ(policy->LastRoute().score, 400);
  loads[c2].prefill_tokens = 600;  // 600 + 320 = 920 fits: reuse wins again
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c2);
  EXPECT_STREQ(policy->LastRoute().reason, "prefix_match");
  EXPECT_EQ(policy->LastRoute().score, 920);
  loads[c2].prefill_tokens = 800;
  loads[c1].prefill_tokens = 2000;  // 2400 > 1120: switching would not help
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0, &cache}), c2);
  std::map<std::string, double> stats;
  for (auto& [name, value] : policy->Stats()) stats[name] = value;
  EXPECT_EQ(stats["dualmap_slo_switches"], 1);
}

// With every prompt sharing a 2-prefix-block system prompt, a fixed key would
// put all traffic on two replicas; the hot prefix is split one prefix block
// deeper, where the prompts differ, and spreads over the cluster.
TEST_F(DualMapTest, HotPrefixIsSplitAcrossTheCluster) {
  auto spread = [&](double extend_factor) {
    auto policy = Make({{"extend_factor", extend_factor, ""}});
    auto loads = Loads(4);
    std::set<uint32_t> used;
    for (uint64_t i = 0; i < 200; ++i) {
      models::Request r;
      r.id = i;
      *r.hashes.mutable_prompt() = DualmapChain(80, i, /*shared_blocks=*/64);
      r.prompt_tokens = 80 * 16;
      used.insert(policy->Route(r, ClusterView{loads, sim::FromSeconds(0.01 * i)}));
    }
    return used.size();
  };
  EXPECT_EQ(spread(2), 4u);
  EXPECT_LE(spread(1e6), 2u);  // never split
}

// Replicas 0 and 1 are over the SLO (1200 pending tokens each), 2 and 3 idle.
// Queues, front first, of 400-token requests (other candidate in brackets):
//   0: q1 [2], q2 [1], q3 [3]        1: q4 [2], q5 [3], q6 [2]
// From the tail, TTFT in tokens = queued ahead + own 400:
//   q3: 800+400 = 1200 vs 3: 0+400    B = 800
//   q2: its other candidate is over the SLO: stays
//   q1: 0+400 vs 400                  B = 0: stays
//   q6: 1200 vs 2: 400                B = 800
//   q5: 800 vs 3: 400                 B = 400
//   q4: 400 vs 400                    B = 0
// Highest B first: q3 -> 3 (3 now owes 400), q6 -> 2, then q5 would see
// 400+400 = 800 on 3: B = 0, so it stays.
TEST_F(DualMapTest, RebalancingMovesQueuedRequestsHighestBenefitFirst) {
  auto policy = MakeExact();
  std::vector<models::Request> q = {WithCandidates(0, 2), WithCandidates(0, 1),
                                    WithCandidates(0, 3), WithCandidates(1, 2),
                                    WithCandidates(1, 3), WithCandidates(1, 2)};
  FakeQueues queues;
  queues.queues_[0] = {q[0], q[1], q[2]};
  queues.queues_[1] = {q[3], q[4], q[5]};
  auto loads = Loads(4);
  loads[0].prefill_tokens = loads[1].prefill_tokens = 1200;
  FakeCache cache;
  ClusterView view{loads, 0, &cache, &queues};
  models::Request arriving = WithCandidates(0, 1);
  policy->Route(arriving, view);
  std::vector<QueueMove> moves;
  policy->Rebalance(view, &moves);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].request_id, q[2].id);
  EXPECT_EQ(moves[0].from, 0u);
  EXPECT_EQ(moves[0].to, 3u);
  EXPECT_EQ(moves[1].request_id, q[5].id);
  EXPECT_EQ(moves[1].from, 1u);
  EXPECT_EQ(moves[1].to, 2u);
  // One pass per overload: nothing more until the next dispatch finds one.
  moves.clear();
  policy->Rebalance(view, &moves);
  EXPECT_TRUE(moves.empty());
}

TEST_F(DualMapTest, NoRebalancingUnlessBothCandidatesAreOverloaded) {
  std::vector<models::Request> q = {WithCandidates(0, 3)};
  FakeQueues queues;
  queues.queues_[0] = q;
  auto loads = Loads(4);
  loads[0].prefill_tokens = 1200;
  FakeCache cache;
  ClusterView view{loads, 0, &cache, &queues};
  models::Request arriving = WithCandidates(0, 1);
  for (bool enabled : {true, false}) {
    auto policy = MakeExact({{"rebalance", 0, "", enabled ? "on" : "off"}});
    loads[1].prefill_tokens = 500;  // only 0 is over: the pick, 1, predicts 500 + 400
    policy->Route(arriving, view);
    std::vector<QueueMove> moves;
    policy->Rebalance(view, &moves);
    EXPECT_TRUE(moves.empty());
    loads[1].prefill_tokens = 1200;  // both are
    policy->Route(arriving, view);
    policy->Rebalance(view, &moves);
    EXPECT_EQ(moves.size(), enabled ? 1u : 0u);
  }
}

TEST_F(DualMapTest, ShrinkAboveExtendIsAConfigurationError) {
  EXPECT_THROW(Make({{"shrink_factor", 3, ""}}), PolicyConfigError);
}

}  // namespace
}  // namespace kvroute::policies
