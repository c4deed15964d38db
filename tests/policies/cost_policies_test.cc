// softmax and flexlb as policies: their sampled choices follow the
// probabilities of their cost S_i (seed 000), computed from the same estimator.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "models/cost_model.h"
#include "policies/cost_estimate.h"
#include "policies/probabilistic_choice.h"
#include "policies/registry.h"
#include "tests/policies/chi_square.h"
#include "tests/policies/fixed_oracle.h"

namespace kvroute::policies {
namespace {

class CostPoliciesTest : public ::testing::Test {
 protected:
  CostPoliciesTest() : oracle_({0, 64, 128, 0}), loads_(4) {
    // Costs that do not move with the fitted efficiencies: 100 ms an
    // iteration, whatever its batch.
    ctx_.cost_model = &cost_model_;
    ctx_.num_replicas = 4;
    ctx_.seed = 3;
    request_.prompt_tokens = 2100;
    for (uint64_t b = 0; b < 2100 / 16; ++b) request_.hashes.mutable_prompt()->push_back(b + 1);
    loads_[0].prefill_tokens = 0;
    loads_[1].prefill_tokens = 1500;
    loads_[2].prefill_tokens = 4000;
    loads_[3].prefill_tokens = 500;
  }

  std::unique_ptr<Policy> Make(const std::string& name, std::vector<ParamValue> params = {}) {
    const PolicyInfo& info = FindPolicy(name);
    return info.factory(ResolveParams(info, params), ctx_);
  }

  // S_i in seconds, as the policies compute it.
  std::vector<double> Costs() {
    CostEstimator estimator(ctx_);
    ClusterView view = View();
    std::vector<double> costs;
    for (uint32_t r = 0; r < 4; ++r) {
      costs.push_back(
          estimator.PrefillSeconds(request_.prompt_tokens, ExactHitTokens(view, r, request_, 16)) +
          estimator.QueuedPrefillSeconds(loads_[r]));
    }
    return costs;
  }

  std::vector<uint64_t> Sample(Policy& policy, int n) {
    std::vector<uint64_t> counts(4, 0);
    ClusterView view = View();
    for (int i = 0; i < n; ++i) ++counts[policy.Route(request_, view)];
    return counts;
  }

  ClusterView View() { return ClusterView{loads_, 0, &oracle_}; }

  models::FixedCostModel cost_model_{sim::FromSeconds(0.1)};
  PolicyContext ctx_;
  FixedOracle oracle_;
  std::vector<models::ReplicaLoad> loads_;
  models::Request request_;
};

TEST_F(CostPoliciesTest, CachedPrefixShortensThePrefillEstimate) {
  PolicyContext physical = ctx_;
  physical.cost_model = nullptr;  // the default profile's physical model
  CostEstimator estimator(physical);
  EXPECT_LT(estimator.PrefillSeconds(2100, 2048), estimator.PrefillSeconds(2100, 1024));
  EXPECT_LT(estimator.PrefillSeconds(2100, 1024), estimator.PrefillSeconds(2100, 0));
  EXPECT_GT(estimator.PrefillSeconds(2100, 2100), 0);  // the last token is computed
}

TEST_F(CostPoliciesTest, SoftmaxFrequenciesMatchExponentialDecay) {
  std::vector<double> p(4);
  ExponentialDecayProbabilities(Costs(), 0.020, p);
  for (double q : p) ASSERT_GT(q, 0.01);  // every cell is informative
  auto policy = Make("softmax");
  EXPECT_TRUE(FitsProbabilities(Sample(*policy, 20000), p));
}

TEST_F(CostPoliciesTest, SoftmaxDeltaControlsConcentration) {
  std::vector<double> p(4);
  ExponentialDecayProbabilities(Costs(), 0.005, p);
  auto policy = Make("softmax", {{"delta_ms", 5, ""}});
  EXPECT_TRUE(FitsProbabilities(Sample(*policy, 20000), p));
}

TEST_F(CostPoliciesTest, FlexLbIsUniformWithinTolerance) {
  std::vector<double> costs = Costs();
  double s_min = *std::min_element(costs.begin(), costs.end()) * 1000;
  double tolerance = std::max(std::floor(0.1 * s_min), 20.0);
  std::vector<double> p(4, 0);
  double in = 0;
  for (int r = 0; r < 4; ++r) in += costs[r] * 1000 <= s_min + tolerance ? 1 : 0;
  for (int r = 0; r < 4; ++r) p[r] = costs[r] * 1000 <= s_min + tolerance ? 1 / in : 0;
  ASSERT_GE(in, 2);  // the fixture puts more than one replica inside
  ASSERT_LT(in, 4);  // and at least one outside
  auto policy = Make("flexlb");
  EXPECT_TRUE(FitsProbabilities(Sample(*policy, 12000), p));
}

}  // namespace
}  // namespace kvroute::policies
