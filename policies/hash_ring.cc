#include "policies/hash_ring.h"

#include <algorithm>
#include <cassert>

#include "sim/core/hashing.h"

namespace kvroute::policies {

HashRing::HashRing(uint32_t replicas, uint32_t virtual_nodes, uint64_t salt) {
  points_.reserve(static_cast<size_t>(replicas) * virtual_nodes);
  for (uint32_t r = 0; r < replicas; ++r) {
    for (uint32_t i = 0; i < virtual_nodes; ++i) {
      // Salt 0 keeps the layout `sticky` and `chwbl` have always had.
      uint64_t seed = salt == 0 ? sim::Mix64(r) : sim::Combine(salt, r);
      points_.push_back(Point{sim::Combine(seed, i), r});
    }
  }
  std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.replica < b.replica;
  });
}

size_t HashRing::FirstPointAtOrAfter(uint64_t hash) const {
  auto it = std::lower_bound(points_.begin(), points_.end(), hash,
                             [](const Point& p, uint64_t h) { return p.hash < h; });
  return it == points_.end() ? 0 : static_cast<size_t>(it - points_.begin());
}

uint32_t HashRing::Successor(uint64_t hash) const {
  assert(!points_.empty());
  return points_[FirstPointAtOrAfter(hash)].replica;
}

uint32_t HashRing::SuccessorHealthy(uint64_t hash, const ClusterView& view) const {
  size_t start = FirstPointAtOrAfter(hash);
  for (size_t step = 0; step < points_.size(); ++step) {
    uint32_t r = points_[(start + step) % points_.size()].replica;
    if (view.healthy(r)) return r;
  }
  assert(false && "no healthy replica on the ring");
  return 0;
}

}  // namespace kvroute::policies
