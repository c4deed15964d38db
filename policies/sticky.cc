// sticky: plain consistent hashing of the routing key with virtual nodes, blind
// to load (Karger et al. 1997). The CacheRoute paper's Sticky baseline (seed 003
// §4); seed 002 §2. A key whose replica is unhealthy walks on clockwise.
#include "policies/builtin_policies.h"
#include "policies/hash_ring.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

class StickyPolicy : public Policy {
 public:
  StickyPolicy(uint32_t replicas, uint32_t virtual_nodes) : ring_(replicas, virtual_nodes) {}
  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    // hash_owner: the key's successor on the ring; owner_down: it was
    // unhealthy and the key walked on.
    const uint64_t hash = sim::Mix64(request.key);
    const uint32_t pick = ring_.SuccessorHealthy(hash, view);
    Explain(pick == ring_.Successor(hash) ? "hash_owner" : "owner_down");
    return pick;
  }

 private:
  HashRing ring_;
};

}  // namespace

PolicyInfo StickyPolicyInfo() {
  return {"sticky",
          "consistent hashing of the routing key with virtual nodes, load-blind (Sticky)",
          {{"virtual_nodes", 100, "points per replica on the hash ring", true, 1}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<StickyPolicy>(
                ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes")));
          },
          "",
          {{"hash_owner", "the key's owner on the ring"},
           {"owner_down", "the owner was unhealthy; the next healthy one on the ring"}},
          ""};
}

}  // namespace kvroute::policies
