// sticky: plain consistent hashing of the routing key with virtual nodes, blind
// to load (Karger et al. 1997). The CacheRoute paper's Sticky baseline (seed 003
// §4); seed 002 §2. A key whose replica is unhealthy walks on clockwise.
#include "policies/builtin_policies.h"
#include "policies/ring_owner_policy.h"

namespace kvroute::policies {

PolicyInfo StickyPolicyInfo() {
  return {"sticky",
          "consistent hashing of the routing key with virtual nodes, load-blind (Sticky)",
          {{"virtual_nodes", 100, "points per replica on the hash ring", true, 1}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<RingOwnerPolicy>(
                ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes")),
                [](const models::Request& r) -> uint64_t { return r.key; });
          },
          "",
          {{"hash_owner", "the key's owner on the ring"},
           {"owner_down", "the owner was unhealthy; the next healthy one on the ring"}},
          ""};
}

}  // namespace kvroute::policies
