// random: a healthy replica drawn uniformly (SGLang router random.rs; seed 002 §1).
#include "policies/builtin_policies.h"
#include "policies/load_balancing.h"

namespace kvroute::policies {
namespace {

class RandomPolicy : public Policy {
 public:
  explicit RandomPolicy(uint64_t seed) : rng_(seed, "policy.random") {}
  uint32_t Route(const models::Request&, const ClusterView& view) override {
    Explain("random");  // a uniform draw; nothing more to say
    return UniformHealthy(view, rng_);
  }

 private:
  sim::RandomStream rng_;
};

}  // namespace

PolicyInfo RandomPolicyInfo() {
  return {"random",
          "a healthy replica drawn uniformly at random",
          {},
          [](const Params&, const PolicyContext& ctx) {
            return std::make_unique<RandomPolicy>(ctx.seed);
          },
          "",
          {{"random", "a uniform draw"}},
          ""};
}

}  // namespace kvroute::policies
