// flat_lb: power of two choices on outstanding work, blind to the cache. The
// CacheRoute paper's Flat-LB baseline (seed 003 §4); Mitzenmacher's two-choice
// rule as in SGLang power_of_two.rs (shared/reference/policies.md §8).
#include "policies/builtin_policies.h"
#include "policies/load_balancing.h"

namespace kvroute::policies {
namespace {

class FlatLbPolicy : public Policy {
 public:
  explicit FlatLbPolicy(uint64_t seed) : rng_(seed, "policy.flat_lb") {}
  uint32_t Route(const models::Request&, const ClusterView& view) override {
    // Score: the winner's outstanding tokens, the load the two draws compared.
    const uint32_t pick = PowerOfTwoChoices(view, rng_);
    Explain("two_choices", static_cast<double>(view.replicas[pick].outstanding_tokens()));
    return pick;
  }

 private:
  sim::RandomStream rng_;
};

}  // namespace

PolicyInfo FlatLbPolicyInfo() {
  return {"flat_lb",
          "power of two choices on outstanding tokens, cache-blind (the paper's Flat-LB)",
          {},
          [](const Params&, const PolicyContext& ctx) {
            return std::make_unique<FlatLbPolicy>(ctx.seed);
          },
          "",
          {{"two_choices", "the less loaded of two random replicas"}},
          "the chosen replica's outstanding tokens"};
}

}  // namespace kvroute::policies
