// DualMap's two candidate replicas for a key (Yuan et al., arXiv 2602.06502,
// §3.2; policies.md §6): the successors of the key on two consistent-hash rings
// laid out, and searched, with independent hash functions. Requests sharing a
// key always meet on the same two replicas, while distinct keys get two
// independent uniform choices, as in the power of two choices (§8).
#ifndef KVROUTE_POLICIES_DUAL_HASH_RINGS_H_
#define KVROUTE_POLICIES_DUAL_HASH_RINGS_H_

#include <cstdint>

#include "policies/hash_ring.h"
#include "policies/policy.h"

namespace kvroute::policies {

class DualHashRings {
 public:
  DualHashRings(uint32_t replicas, uint32_t virtual_nodes);

  struct Candidates {
    uint32_t first;   // from ring 1
    uint32_t second;  // from ring 2; == first only when one replica is healthy
  };

  // The first healthy replica clockwise from the key on ring 1, and on ring 2
  // the first healthy one other than it: when both rings name the same
  // replica, its deterministic neighbour on ring 2 stands in. Unhealthy
  // replicas are walked past, as consistent hashing does.
  // REQUIRES: a replica in `view` is healthy.
  Candidates Pick(uint64_t key, const ClusterView& view) const;

 private:
  HashRing ring1_;
  HashRing ring2_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_DUAL_HASH_RINGS_H_
