#include "policies/dual_hash_rings.h"

#include <cassert>

#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

// Arbitrary distinct constants: each salts one ring's layout and its key hash.
constexpr uint64_t kRing1Salt = 0x4475616c4d617031ULL;  // "DualMap1"
constexpr uint64_t kRing2Salt = 0x4475616c4d617032ULL;  // "DualMap2"

}  // namespace

DualHashRings::DualHashRings(uint32_t replicas, uint32_t virtual_nodes)
    : ring1_(replicas, virtual_nodes, kRing1Salt), ring2_(replicas, virtual_nodes, kRing2Salt) {}

DualHashRings::Candidates DualHashRings::Pick(uint64_t key, const ClusterView& view) const {
  const uint32_t first = ring1_.FirstAccepted(sim::Combine(kRing1Salt, key),
                                              [&](uint32_t r) { return view.healthy(r); });
  assert(first != UINT32_MAX && "no healthy replica");
  const uint32_t second = ring2_.FirstAccepted(
      sim::Combine(kRing2Salt, key), [&](uint32_t r) { return r != first && view.healthy(r); });
  return Candidates{first, second == UINT32_MAX ? first : second};
}

}  // namespace kvroute::policies
