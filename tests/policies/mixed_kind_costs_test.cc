// A pool of two GPU kinds: the policies that estimate each replica's work in
// seconds (least_loaded's `work` measure, softmax, flexlb) price each replica
// on its own kind's cost model, so that the same queue costs more on the
// slower kind; without per-replica models every replica is the pool's.
#include <gtest/gtest.h>

#include <vector>

#include "models/cost_model.h"
#include "policies/cost_estimate.h"
#include "policies/registry.h"

namespace kvroute::policies {
namespace {

class MixedKindCostsTest : public ::testing::Test {
 protected:
  MixedKindCostsTest() : loads_(2) {
    // Replica 0 is the slow kind (300 ms an iteration), replica 1 the fast
    // one (100 ms), which is also the pool's first.
    ctx_.cost_model = &fast_;
    ctx_.num_replicas = 2;
    ctx_.seed = 5;
    ctx_.replica_cost_models = {&slow_, &fast_};
    ctx_.replica_batched_tokens = {8192, 8192};
    for (models::ReplicaLoad& l : loads_) {
      l.prefill_tokens = 3000;
      l.decode_tokens = 40;
      l.running = 4;
    }
    request_.prompt_tokens = 1000;
  }

  uint32_t RouteWith(const std::string& name, std::vector<ParamValue> params = {}) {
    const PolicyInfo& info = FindPolicy(name);
    std::unique_ptr<Policy> policy = info.factory(ResolveParams(info, params), ctx_);
    const ClusterView view{loads_, 0, nullptr};
    std::vector<uint32_t> counts(2, 0);
    for (int i = 0; i < 200; ++i) ++counts[policy->Route(request_, view)];
    return counts[1];
  }

  models::FixedCostModel fast_{sim::FromSeconds(0.1)}, slow_{sim::FromSeconds(0.3)};
  PolicyContext ctx_;
  std::vector<models::ReplicaLoad> loads_;
  models::Request request_;
};

TEST_F(MixedKindCostsTest, EachReplicaIsPricedOnItsOwnKind) {
  const CostEstimator estimator(ctx_);
  // One iteration of 1000 prompt tokens: 100 ms on the fast kind, 300 ms on the slow.
  EXPECT_DOUBLE_EQ(estimator.PrefillSecondsOn(1, 1000, 0), 0.1);
  EXPECT_DOUBLE_EQ(estimator.PrefillSecondsOn(0, 1000, 0), 0.3);
  EXPECT_DOUBLE_EQ(estimator.QueuedPrefillSecondsOn(0, loads_[0]),
                   3 * estimator.QueuedPrefillSecondsOn(1, loads_[1]));
  EXPECT_DOUBLE_EQ(estimator.OutstandingWorkSecondsOn(0, loads_[0]),
                   3 * estimator.OutstandingWorkSecondsOn(1, loads_[1]));
  // The pool-wide figures stay the first kind's.
  EXPECT_DOUBLE_EQ(estimator.PrefillSeconds(1000, 0), 0.1);
  EXPECT_DOUBLE_EQ(estimator.prefill_seconds_per_token(), 0.1 / 8192);
}

TEST_F(MixedKindCostsTest, WithoutPerReplicaModelsEveryReplicaIsThePools) {
  ctx_.replica_cost_models.clear();
  ctx_.replica_batched_tokens.clear();
  const CostEstimator estimator(ctx_);
  for (uint32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(estimator.PrefillSecondsOn(r, 1000, 0), estimator.PrefillSeconds(1000, 0));
    EXPECT_EQ(estimator.OutstandingWorkSecondsOn(r, loads_[r]),
              estimator.OutstandingWorkSeconds(loads_[r]));
  }
}

TEST_F(MixedKindCostsTest, EqualQueuesSendTheRequestToTheFasterKind) {
  // Equal loads: priced by the pool's model alone, least_loaded would split
  // them by its tie-break; priced per kind, the fast replica always wins.
  EXPECT_EQ(RouteWith("least_loaded", {{"measure", 0, "", "work"}}), 200u);
  EXPECT_EQ(RouteWith("flexlb"), 200u);
  // softmax samples exp(-S_i / delta): 0.1 + 0.9 s against 0.3 + 2.7 s at
  // the default delta still favours the fast kind heavily.
  EXPECT_GT(RouteWith("softmax"), 190u);
  ctx_.replica_cost_models.clear();
  ctx_.replica_batched_tokens.clear();
  const uint32_t fast = RouteWith("least_loaded", {{"measure", 0, "", "work"}});
  EXPECT_GT(fast, 50u);
  EXPECT_LT(fast, 150u);
}

}  // namespace
}  // namespace kvroute::policies
