// The owner on a consistent-hash ring of one field of the request, load-blind;
// an unhealthy owner's requests walk on clockwise. `sticky` hashes the routing
// key, `session_affinity` the session id: the same rule on another field.
#ifndef KVROUTE_POLICIES_RING_OWNER_POLICY_H_
#define KVROUTE_POLICIES_RING_OWNER_POLICY_H_

#include <cstdint>

#include "policies/hash_ring.h"
#include "policies/policy.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {

class RingOwnerPolicy : public Policy {
 public:
  using FieldOf = uint64_t (*)(const models::Request&);

  RingOwnerPolicy(uint32_t replicas, uint32_t virtual_nodes, FieldOf field)
      : ring_(replicas, virtual_nodes), field_(field) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    // hash_owner: the field's successor on the ring; owner_down: it was
    // unhealthy and the request walked on.
    const uint64_t hash = sim::Mix64(field_(request));
    const uint32_t pick = ring_.SuccessorHealthy(hash, view);
    Explain(pick == ring_.Successor(hash) ? "hash_owner" : "owner_down");
    return pick;
  }

 private:
  HashRing ring_;
  FieldOf field_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_RING_OWNER_POLICY_H_
