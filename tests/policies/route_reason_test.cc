// What each policy says about its last choice (Policy::LastRoute): per policy
// a hand-built case whose reason and score are known, and for every policy
// that the reasons it gives are the ones its registry entry documents.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "models/cost_model.h"
#include "models/workload.h"
#include "policies/cost_estimate.h"
#include "policies/llmd_scorers.h"
#include "policies/registry.h"
#include "tests/policies/fixed_oracle.h"

namespace kvroute::policies {
namespace {

class RouteReasonTest : public ::testing::Test {
 protected:
  std::unique_ptr<Policy> Make(const std::string& name, uint32_t replicas,
                               std::vector<ParamValue> params = {}) {
    const PolicyInfo& info = FindPolicy(name);
    ctx_.num_replicas = replicas;
    return info.factory(ResolveParams(info, params), ctx_);
  }
  // A request of `blocks` full 16-token blocks.
  static models::Request Blocks(uint32_t blocks, uint32_t key = 0) {
    models::Request r;
    r.key = key;
    r.prompt_tokens = blocks * 16;
    r.output_tokens = 1;
    for (uint64_t b = 0; b < blocks; ++b)
      r.hashes.mutable_prompt()->push_back(1000 * (key + 1) + b);
    return r;
  }
  std::string Reason(const Policy& p) { return p.LastRoute().reason ? p.LastRoute().reason : ""; }
  double Score(const Policy& p) { return p.LastRoute().score; }

  PolicyContext ctx_;
};

TEST_F(RouteReasonTest, RoundRobinAndRandomHaveOneReasonAndNoScore) {
  std::vector<models::ReplicaLoad> loads(3);
  for (const char* name : {"round_robin", "random"}) {
    auto policy = Make(name, 3);
    policy->Route(Blocks(2), ClusterView{loads, 0});
    EXPECT_EQ(Reason(*policy), name);
    EXPECT_TRUE(std::isnan(Score(*policy)));
  }
}

TEST_F(RouteReasonTest, LoadPoliciesScoreTheWinnersLoad) {
  std::vector<models::ReplicaLoad> loads(2);
  loads[0].prefill_tokens = 100;
  loads[1].decode_tokens = 30;
  auto flat = Make("flat_lb", 2);
  EXPECT_EQ(flat->Route(Blocks(2), ClusterView{loads, 0}), 1u);
  EXPECT_EQ(Reason(*flat), "two_choices");
  EXPECT_EQ(Score(*flat), 30);
  loads[0].waiting = 3;
  loads[1].running = 2;
  auto least = Make("least_loaded", 2);
  EXPECT_EQ(least->Route(Blocks(2), ClusterView{loads, 0}), 1u);
  EXPECT_EQ(Reason(*least), "least_load");
  EXPECT_EQ(Score(*least), 2);  // waiting + running
}

TEST_F(RouteReasonTest, HashPoliciesSayWhenTheOwnerIsDown) {
  for (const char* name : {"sticky", "session_affinity"}) {
    std::vector<models::ReplicaLoad> loads(4);
    auto policy = Make(name, 4);
    models::Request r = Blocks(2, 7);
    r.session = 7;
    const uint32_t owner = policy->Route(r, ClusterView{loads, 0});
    EXPECT_EQ(Reason(*policy), "hash_owner") << name;
    loads[owner].healthy = false;
    EXPECT_NE(policy->Route(r, ClusterView{loads, 0}), owner);
    EXPECT_EQ(Reason(*policy), "owner_down") << name;
    EXPECT_TRUE(std::isnan(Score(*policy)));
  }
}

TEST_F(RouteReasonTest, PrefixHashScoresTheBlocksHashed) {
  std::vector<models::ReplicaLoad> loads(4);
  auto policy = Make("prefix_hash", 4);
  policy->Route(Blocks(20), ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "prefix_hash");
  EXPECT_EQ(Score(*policy), 8);  // the default `blocks`
  policy->Route(Blocks(3), ClusterView{loads, 0});
  EXPECT_EQ(Score(*policy), 3);
  policy->Route(Blocks(0), ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "key_hash");
  EXPECT_EQ(Score(*policy), 0);
}

// Three replicas, epsilon 0.25: the first request's bound is
// ceil(1.25 * 1 / 3) = 1; with it in flight on the owner, the second's is
// ceil(1.25 * 2 / 3) = 1 too, so it walks past the owner.
TEST_F(RouteReasonTest, ChwblSaysWhenTheBoundPassedTheOwner) {
  std::vector<models::ReplicaLoad> loads(3);
  auto policy = Make("chwbl", 3);
  const uint32_t owner = policy->Route(Blocks(2, 5), ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "hash_owner");
  EXPECT_EQ(Score(*policy), 1);
  policy->OnDispatch(Blocks(2, 5), owner, 0);
  EXPECT_NE(policy->Route(Blocks(2, 5), ClusterView{loads, 0}), owner);
  EXPECT_EQ(Reason(*policy), "bounded_load");
  EXPECT_EQ(Score(*policy), 1);
}

// Costs that do not move with fitted efficiencies: 100 ms an iteration.
TEST_F(RouteReasonTest, CostSamplersScoreTheSampledReplicasCost) {
  models::FixedCostModel cost_model(sim::FromSeconds(0.1));
  ctx_.cost_model = &cost_model;
  std::vector<models::ReplicaLoad> loads(3);
  loads[0].prefill_tokens = 4000;
  loads[2].prefill_tokens = 9000;
  FixedOracle oracle({0, 64, 8});
  const models::Request request = Blocks(100);
  ClusterView view{loads, 0, &oracle};
  ctx_.num_replicas = 3;
  CostEstimator estimator(ctx_);
  auto cost = [&](uint32_t r) {
    return estimator.PrefillSeconds(request.prompt_tokens, ExactHitTokens(view, r, request, 16)) +
           estimator.QueuedPrefillSeconds(loads[r]);
  };
  auto softmax = Make("softmax", 3);
  auto flexlb = Make("flexlb", 3);
  for (int i = 0; i < 20; ++i) {
    const uint32_t s = softmax->Route(request, view);
    EXPECT_EQ(Reason(*softmax), "softmax_sample");
    EXPECT_DOUBLE_EQ(Score(*softmax), cost(s));
    const uint32_t f = flexlb->Route(request, view);
    EXPECT_EQ(Reason(*flexlb), "within_tolerance");
    EXPECT_NEAR(Score(*flexlb), 1000 * cost(f), 1e-9);
  }
}

// Ten blocks, 4 cached on worker 1, nothing queued: logit_w = (160 - 16
// overlap) / 16 + (10 - overlap) = 20 - 2 overlap (dynamo_kv.cc).
TEST_F(RouteReasonTest, DynamoPrefixHitScoresItsLogit) {
  std::vector<models::ReplicaLoad> loads(3);
  auto policy = Make("dynamo_kv", 3);
  FixedOracle hit({0, 4, 0});
  EXPECT_EQ(policy->Route(Blocks(10), ClusterView{loads, 0, &hit}), 1u);
  EXPECT_EQ(Reason(*policy), "prefix_match");
  EXPECT_EQ(Score(*policy), 12);
  FixedOracle cold({0, 0, 0});
  policy->Route(Blocks(10), ClusterView{loads, 0, &cold});
  EXPECT_EQ(Reason(*policy), "no_overlap");
  EXPECT_EQ(Score(*policy), 20);
}

// Precise prefix cache, default weights 3/2/2/0: the prefix scorer gives
// 4/10 on pod 1; the queue and KV scorers are equal across idle pods.
TEST_F(RouteReasonTest, LlmdPrefixHitScoresItsWeightedSum) {
  std::vector<models::ReplicaLoad> loads(3);
  auto policy = Make("llmd", 3, {{"prefix_cache", 0, "", "precise"}});
  FixedOracle hit({0, 4, 0});
  EXPECT_EQ(policy->Route(Blocks(10), ClusterView{loads, 0, &hit}), 1u);
  std::vector<double> queue(3, 0), scores(3);
  std::vector<uint8_t> eligible(3, 1);
  LlmdQueueScores(queue, eligible, scores);
  EXPECT_EQ(Reason(*policy), "prefix_match");
  EXPECT_DOUBLE_EQ(Score(*policy), 3 * 0.4 + 2 * scores[1] + 2 * 1.0);
  FixedOracle cold({0, 0, 0});
  policy->Route(Blocks(10), ClusterView{loads, 0, &cold});
  EXPECT_EQ(Reason(*policy), "load_score");
  EXPECT_DOUBLE_EQ(Score(*policy), 2 * scores[0] + 2 * 1.0);
}

// Two replicas, one slot each (C = 2): keys 0 and 1 are admitted, 2 and 3
// are not (seed 003 §3.1, top-rate admission).
TEST_F(RouteReasonTest, CacheRoutePlannedKeyIsPlanOtherKeysFallBack) {
  ctx_.key_rates = {10, 5, 1, 0.5};
  auto policy = Make("cacheroute", 2, {{"slots_per_replica", 1, ""}});
  std::vector<models::ReplicaLoad> loads(2);
  loads[0].decode_tokens = 7;
  loads[1].decode_tokens = 7;
  policy->Route(Blocks(2, 0), ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "plan");
  EXPECT_EQ(Score(*policy), 7);
  policy->Route(Blocks(2, 3), ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "fallback");
  EXPECT_EQ(Score(*policy), 7);
}

// A prompt is explored until a longer part of it than its new part is cached
// (preble.cc: blocks(leaf) < context_so_far(leaf)).
TEST_F(RouteReasonTest, PrebleExploresNewPromptsAndExploitsCachedOnes) {
  std::vector<models::ReplicaLoad> loads(3);
  auto policy = Make("preble", 3);
  models::Request r = Blocks(10);
  const uint32_t first = policy->Route(r, ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "explore");
  policy->OnDispatch(r, first, 0);
  r.id = 1;  // shares 8 of its 10 blocks: more cached than new
  (*r.hashes.mutable_prompt())[8] = (*r.hashes.mutable_prompt())[9] = 77;
  EXPECT_EQ(policy->Route(r, ClusterView{loads, 0}), first);
  EXPECT_EQ(Reason(*policy), "exploit");
  EXPECT_FALSE(std::isnan(Score(*policy)));
  r.id = 2;
  r.hashes.mutable_prompt()->clear();
  r.prompt_tokens = 5;
  policy->Route(r, ClusterView{loads, 0});
  EXPECT_EQ(Reason(*policy), "no_prefix");
}

// Every policy over a workload: each reason it gives is in its documented
// vocabulary, and a policy that documents no score gives none.
class RouteReasonVocabularyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RouteReasonVocabularyTest, ReasonsAreDocumented) {
  const PolicyInfo& info = FindPolicy(GetParam());
  std::set<std::string> documented;
  for (const RouteReasonSpec& r : info.route_reasons) documented.insert(r.reason);
  ASSERT_FALSE(documented.empty());
  PolicyContext ctx;
  ctx.num_replicas = 4;
  ctx.seed = 1;
  models::WorkloadConfig config;
  config.keys = 50;
  for (double share : models::ZipfShares(config.keys, 1.0)) ctx.key_rates.push_back(share * 50);
  auto policy = info.factory(ResolveParams(info, {}), ctx);
  models::WorkloadGenerator workload(config, 1, 50, sim::FromSeconds(1e6));
  std::vector<models::ReplicaLoad> loads(4);
  FixedOracle oracle({0, 3, 9, 40});
  models::Request request;
  for (int i = 0; i < 500 && workload.Next(&request); ++i) {
    loads[1].healthy = i % 7 != 0;
    ClusterView view{loads, request.arrival, &oracle};
    const uint32_t r = policy->Route(request, view);
    ASSERT_NE(policy->LastRoute().reason, nullptr);
    ASSERT_TRUE(documented.count(policy->LastRoute().reason)) << policy->LastRoute().reason;
    if (info.route_score.empty()) {
      ASSERT_TRUE(std::isnan(policy->LastRoute().score));
    }
    policy->OnDispatch(request, r, request.arrival);
    loads[r].prefill_tokens += request.prompt_tokens;
  }
}

std::vector<std::string> AllPolicies() {
  std::vector<std::string> names;
  for (const PolicyInfo& info : PolicyTable()) names.push_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, RouteReasonVocabularyTest, ::testing::ValuesIn(AllPolicies()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kvroute::policies
