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
    return PowerOfTwoChoices(view, rng_);
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
          }};
}

}  // namespace kvroute::policies
