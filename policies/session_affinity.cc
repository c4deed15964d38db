// session_affinity: every turn of a session goes to the same replica (seed 002
// §5), as vLLM production-stack's session router does: a consistent-hash ring
// over the endpoints keyed by the session id (routing_logic.py, uhashring with
// its default 160 points per node; policies.md §4). Load-blind; an unhealthy
// owner's sessions walk on clockwise.
#include "policies/builtin_policies.h"
#include "policies/ring_owner_policy.h"

namespace kvroute::policies {

PolicyInfo SessionAffinityPolicyInfo() {
  return {"session_affinity",
          "consistent hashing of the session id: a session's turns share a replica",
          {{"virtual_nodes", 160, "points per replica on the hash ring (uhashring)", true, 1}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<RingOwnerPolicy>(
                ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes")),
                [](const models::Request& r) -> uint64_t { return r.session; });
          },
          "",
          {{"hash_owner", "the session's owner on the ring"},
           {"owner_down", "the owner was unhealthy; the next healthy one on the ring"}},
          ""};
}

}  // namespace kvroute::policies
