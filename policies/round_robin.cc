// round_robin: the next healthy replica in index order (SGLang router
// round_robin.rs; seed 002 §1). With three replicas the sequence is 0,1,2,0,1;
// with replica 1 unhealthy it is 0,2,0,2 (shared/reference/policies.md §1).
#include "policies/builtin_policies.h"

namespace kvroute::policies {
namespace {

class RoundRobinPolicy : public Policy {
 public:
  uint32_t Route(const models::Request&, const ClusterView& view) override {
    // As SGLang: a counter over the healthy set, so an unhealthy replica's
    // turn passes to the next healthy one.
    uint32_t healthy = 0;
    for (uint32_t r = 0; r < view.size(); ++r) healthy += view.healthy(r) ? 1 : 0;
    uint64_t k = counter_++ % healthy;
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (view.healthy(r) && k-- == 0) {
        Explain("round_robin");  // its turn; nothing more to say
        return r;
      }
    }
    return 0;
  }

 private:
  uint64_t counter_ = 0;
};

}  // namespace

PolicyInfo RoundRobinPolicyInfo() {
  return {"round_robin",
          "the next healthy replica in turn (SGLang round_robin)",
          {},
          [](const Params&, const PolicyContext&) { return std::make_unique<RoundRobinPolicy>(); },
          "",
          {{"round_robin", "its turn in the rotation"}},
          ""};
}

}  // namespace kvroute::policies
