// flexlb: RTP-LLM FlexLB's CostBasedPrefillStrategy (policies.md §9; seed 000
// "基于阈值截断的随机选择"). S_e = remaining queued prefill (realWaitTimeMs) +
// this request's prefill after its cache hit on e; the router-batching wait is
// 0 here, as kvroute's router does not batch. After the 3x outlier cut on
// pending requests and wait, a replica is chosen uniformly among
// S_e - S_min <= max(floor(0.1·S_min), 20 ms). The hit is read from the
// replicas' real caches, as FlexLB's master reads the engines' cache status.
#include <vector>

#include "policies/builtin_policies.h"
#include "policies/cost_estimate.h"
#include "policies/probabilistic_choice.h"

namespace kvroute::policies {
namespace {

class FlexLbPolicy : public Policy {
 public:
  FlexLbPolicy(const Params& params, const PolicyContext& ctx)
      : config_{.relative_tolerance = params.Get("relative_tolerance"),
                .minimum_tolerance_ms = params.Get("minimum_tolerance_ms"),
                .pending_outlier = params.Get("outlier_factor"),
                .wait_outlier = params.Get("outlier_factor")},
        estimator_(ctx),
        rng_(ctx.seed, "policy.flexlb"),
        endpoints_(ctx.num_replicas),
        candidates_(ctx.num_replicas),
        hits_(ctx.num_replicas) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    ExactHitTokensAll(view, request, estimator_.block_size(), hits_);
    for (uint32_t r = 0; r < view.size(); ++r) {
      FlexLbEndpoint& e = endpoints_[r];
      e.available = view.healthy(r);
      if (!e.available) continue;
      const models::ReplicaLoad& load = view.replicas[r];
      const uint32_t hit = hits_[r];
      e.wait_ms = 1000 * estimator_.QueuedPrefillSecondsOn(r, load);
      e.cost_ms = e.wait_ms + 1000 * estimator_.PrefillSecondsOn(r, request.prompt_tokens, hit);
      e.pending = load.waiting;
    }
    uint32_t count = FlexLbCandidates(endpoints_, config_, candidates_);
    uint64_t pick = rng_.UniformInt(count);
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (candidates_[r] && pick-- == 0) {
        Explain("within_tolerance", endpoints_[r].cost_ms);  // score: its S_e, ms
        return r;
      }
    }
    return 0;  // unreachable: `count` candidates are marked
  }

 private:
  FlexLbConfig config_;
  CostEstimator estimator_;
  sim::RandomStream rng_;
  std::vector<FlexLbEndpoint> endpoints_;
  std::vector<uint8_t> candidates_;
  std::vector<uint32_t> hits_;  // per replica, this request's cached prompt tokens
};

}  // namespace

PolicyInfo FlexLbPolicyInfo() {
  return {"flexlb",
          "uniform among replicas within max(0.1*S_min, 20 ms) of the least cost (RTP-LLM FlexLB)",
          {{"relative_tolerance", 0.1, "tolerance as a share of S_min", false, 0},
           {"minimum_tolerance_ms", 20, "floor of the tolerance, ms", false, 0},
           {"outlier_factor", 3, "drop replicas above this x average pending or wait", false, 0}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<FlexLbPolicy>(params, ctx);
          },
          "",
          {{"within_tolerance", "drawn among replicas within the tolerance of the least cost"}},
          "the chosen replica's cost S_e, ms"};
}

}  // namespace kvroute::policies
