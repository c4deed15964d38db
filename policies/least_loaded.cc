// least_loaded: join-the-shortest-queue (policies.md §8). The load measure is
// selectable: `requests` (waiting + running, the in-flight count SGLang's
// imbalanced branch and AIBrix least_request.go use), `tokens` (prompt and
// output tokens still owed) or `work` (estimated seconds of outstanding work,
// cost_estimate.h). Ties are broken uniformly at random, as AIBrix does.
#include "policies/builtin_policies.h"
#include "policies/cost_estimate.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

enum class Measure { kRequests = 0, kTokens = 1, kWork = 2 };

class LeastLoadedPolicy : public Policy {
 public:
  LeastLoadedPolicy(const Params& params, const PolicyContext& ctx)
      : measure_(static_cast<Measure>(params.Get("measure"))),
        estimator_(ctx),
        rng_(ctx.seed, "policy.least_loaded") {}

  uint32_t Route(const models::Request&, const ClusterView& view) override {
    uint32_t best = UINT32_MAX;
    uint32_t ties = 0;
    double best_load = 0;
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (!view.healthy(r)) continue;
      double load = Load(r, view.replicas[r]);
      if (best == UINT32_MAX || load < best_load) {
        best = r;
        best_load = load;
        ties = 1;
      } else if (load == best_load && rng_.UniformInt(++ties) == 0) {
        best = r;  // reservoir sampling: uniform among the minima
      }
    }
    Explain("least_load", best_load);  // score: its load in the chosen measure
    return best;
  }

 private:
  double Load(uint32_t replica, const models::ReplicaLoad& load) const {
    switch (measure_) {
      case Measure::kRequests:
        return static_cast<double>(load.waiting) + static_cast<double>(load.running);
      case Measure::kTokens:
        return static_cast<double>(load.outstanding_tokens());
      case Measure::kWork:
        return estimator_.OutstandingWorkSecondsOn(replica, load);
    }
    return 0;
  }

  Measure measure_;
  CostEstimator estimator_;
  sim::RandomStream rng_;
};

}  // namespace

PolicyInfo LeastLoadedPolicyInfo() {
  return {"least_loaded",
          "join the shortest queue under a selectable load measure, random ties",
          {{"measure", 0, "load measure", false, 0, {"requests", "tokens", "work"}}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<LeastLoadedPolicy>(params, ctx);
          },
          "",
          {{"least_load", "the least loaded replica"}},
          "the chosen replica's load in the chosen measure"};
}

}  // namespace kvroute::policies
