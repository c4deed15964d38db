// session_affinity: every turn of a session goes to the same replica (seed 002
// §5), as vLLM production-stack's session router does: a consistent-hash ring
// over the endpoints keyed by the session id (routing_logic.py, uhashring with
// its default 160 points per node; policies.md §4). Load-blind; an unhealthy
// owner's sessions walk on clockwise.
#include "policies/builtin_policies.h"
#include "policies/hash_ring.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

class SessionAffinityPolicy : public Policy {
 public:
  SessionAffinityPolicy(uint32_t replicas, uint32_t virtual_nodes)
      : ring_(replicas, virtual_nodes) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    // hash_owner: the session's successor on the ring; owner_down: it was
    // unhealthy and the session walked on.
    const uint64_t hash = sim::Mix64(request.session);
    const uint32_t pick = ring_.SuccessorHealthy(hash, view);
    Explain(pick == ring_.Successor(hash) ? "hash_owner" : "owner_down");
    return pick;
  }

 private:
  HashRing ring_;
};

}  // namespace

PolicyInfo SessionAffinityPolicyInfo() {
  return {"session_affinity",
          "consistent hashing of the session id: a session's turns share a replica",
          {{"virtual_nodes", 160, "points per replica on the hash ring (uhashring)", true, 1}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<SessionAffinityPolicy>(
                ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes")));
          },
          "",
          {{"hash_owner", "the session's owner on the ring"},
           {"owner_down", "the owner was unhealthy; the next healthy one on the ring"}},
          ""};
}

}  // namespace kvroute::policies
