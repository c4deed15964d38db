// softmax: exponential-decay sampling over per-replica cost (seed 000,
// "基于指数衰减的调度概率"): p_i ∝ 2^(-S_i/Δ), the minimizer of expected cost plus
// τ·KL(p‖uniform) with τ = Δ/ln 2. S_i is the FlexLB cost of cost_estimate.h:
// this request's prefill after its cached prefix on i plus i's queued prefill.
// The cached prefix is read from the replicas' real caches, as FlexLB's master
// reads the engines' reported cache state.
#include <limits>
#include <vector>

#include "policies/builtin_policies.h"
#include "policies/cost_estimate.h"
#include "policies/probabilistic_choice.h"

namespace kvroute::policies {
namespace {

class SoftmaxPolicy : public Policy {
 public:
  SoftmaxPolicy(const Params& params, const PolicyContext& ctx)
      : delta_s_(params.Get("delta_ms") / 1000),
        estimator_(ctx),
        rng_(ctx.seed, "policy.softmax"),
        costs_(ctx.num_replicas),
        probabilities_(ctx.num_replicas),
        hits_(ctx.num_replicas) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    ExactHitTokensAll(view, request, estimator_.block_size(), hits_);
    for (uint32_t r = 0; r < view.size(); ++r) {
      costs_[r] = view.healthy(r)
                      ? estimator_.PrefillSecondsOn(r, request.prompt_tokens, hits_[r]) +
                            estimator_.QueuedPrefillSecondsOn(r, view.replicas[r])
                      : std::numeric_limits<double>::infinity();
    }
    ExponentialDecayProbabilities(costs_, delta_s_, probabilities_);
    // Score: S_i of the sampled replica, seconds.
    const uint32_t pick = SampleIndex(probabilities_, rng_);
    Explain("softmax_sample", costs_[pick]);
    return pick;
  }

 private:
  double delta_s_;
  CostEstimator estimator_;
  sim::RandomStream rng_;
  std::vector<double> costs_;
  std::vector<double> probabilities_;
  std::vector<uint32_t> hits_;  // per replica, this request's cached prompt tokens
};

}  // namespace

PolicyInfo SoftmaxPolicyInfo() {
  return {"softmax",
          "sample p_i ∝ 2^(-S_i/delta) over prefill-after-hit + queued prefill (seed 000)",
          {{"delta_ms", 20, "Δ: each Δ of extra cost halves the odds, ms", false, 1e-6}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<SoftmaxPolicy>(params, ctx);
          },
          "",
          {{"softmax_sample", "drawn with p ∝ 2^(-S/delta)"}},
          "the chosen replica's cost S, seconds"};
}

}  // namespace kvroute::policies
