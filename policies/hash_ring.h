// A consistent-hash ring (Karger et al. 1997; shared/reference/policies.md §7):
// each replica owns `virtual_nodes` points hash(replica, i); a key goes to the
// first point clockwise from hash(key). A non-zero `salt` lays the points out
// with another hash function, for policies that need independent rings.
#ifndef KVROUTE_POLICIES_HASH_RING_H_
#define KVROUTE_POLICIES_HASH_RING_H_

#include <cstdint>
#include <vector>

#include "policies/policy.h"

namespace kvroute::policies {

class HashRing {
 public:
  HashRing(uint32_t replicas, uint32_t virtual_nodes, uint64_t salt = 0);

  // The owner of the first point at or after `hash`, wrapping around.
  uint32_t Successor(uint64_t hash) const;

  // The first healthy owner walking clockwise from `hash`.
  // REQUIRES: one replica is healthy.
  uint32_t SuccessorHealthy(uint64_t hash, const ClusterView& view) const;

  // The first owner walking clockwise from `hash` for which `accept(replica)`
  // holds, or UINT32_MAX when none does after one full turn.
  template <typename Accept>
  uint32_t FirstAccepted(uint64_t hash, Accept accept) const {
    size_t start = FirstPointAtOrAfter(hash);
    for (size_t step = 0; step < points_.size(); ++step) {
      uint32_t r = points_[(start + step) % points_.size()].replica;
      if (accept(r)) return r;
    }
    return UINT32_MAX;
  }

  size_t points() const { return points_.size(); }

 private:
  size_t FirstPointAtOrAfter(uint64_t hash) const;

  struct Point {
    uint64_t hash;
    uint32_t replica;
  };
  std::vector<Point> points_;  // sorted by (hash, replica)
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_HASH_RING_H_
