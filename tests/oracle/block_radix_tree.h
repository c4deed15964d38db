// The per-block original, kept as the oracle of the differential tests (policies/block_radix_tree.h
// now works on runs of blocks and must answer exactly as this does). Not used
// by the simulator.
//
// SGLang's approximate radix tree (sgl-router tree.rs; policies.md §1), over
// prompt blocks instead of characters: a node is one chained block hash, and
// since a chained hash fixes its whole prefix, the tree needs no explicit
// edges — a set of hashes closed under prefixes is a tree. Each tenant
// (replica) owns such a prefix-closed set with a last-access time per block;
// the shared tree is their union, kept as a count of owners per block.
//
// Invariants: a tenant's set is prefix-closed, and a block's time is never
// later than its parent's (every access refreshes the whole path from the
// root), so evicting the tenant's oldest blocks, deepest first on equal
// times, removes leaves only — tree.rs's leaf min-heap, one tenant at a time.
// Sizes count blocks per tenant where tree.rs counts characters.
#ifndef KVROUTE_TESTS_ORACLE_BLOCK_RADIX_TREE_H_
#define KVROUTE_TESTS_ORACLE_BLOCK_RADIX_TREE_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/core/time.h"

namespace kvroute::oracle {

class BlockRadixTree {
 public:
  static constexpr uint32_t kNoTenant = UINT32_MAX;  // tree.rs's "empty"

  explicit BlockRadixTree(uint32_t tenants);

  struct Match {
    uint32_t blocks = 0;          // leading blocks of the chain in the shared tree
    uint32_t tenant = kNoTenant;  // an owner of the deepest matched block
  };

  // tree.rs prefix_match: the longest prefix of `chain` in the union tree and
  // one tenant owning its deepest block. tree.rs takes the first key of that
  // node's DashMap, an order fixed by hashing; here the owner with the least
  // Mix64(block hash, tenant), likewise fixed per node and unbiased across
  // tenants. The chosen tenant's path is refreshed to `now`.
  Match PrefixMatch(std::span<const uint64_t> chain, sim::Time now);

  // tree.rs prefix_match_tenant: leading blocks of `chain` owned by `tenant`.
  uint32_t TenantMatch(uint32_t tenant, std::span<const uint64_t> chain) const;

  // Adds the chain's blocks to `tenant`, all stamped `now`.
  void Insert(std::span<const uint64_t> chain, uint32_t tenant, sim::Time now);

  // tree.rs get_smallest_tenant: the tenant owning the fewest blocks, the
  // lowest index on ties. Every tenant exists from the start with size 0.
  uint32_t SmallestTenant() const;

  // tree.rs evict_tenant_by_size: each tenant above `max_blocks` loses its
  // least recently used leaves until it owns `max_blocks`.
  void EvictBySize(uint32_t max_blocks);

  uint32_t TenantSize(uint32_t tenant) const {
    return static_cast<uint32_t>(owned_[tenant].size());
  }

 private:
  struct Owned {
    sim::Time touched = 0;
    uint32_t depth = 0;  // 1 for a prompt's first block
  };
  void Release(uint64_t hash);

  std::vector<std::unordered_map<uint64_t, Owned>> owned_;  // per tenant
  std::unordered_map<uint64_t, uint32_t> owners_;           // union: block -> tenant count
  struct Victim {
    sim::Time touched;
    uint32_t depth;
    uint64_t hash;
  };
  std::vector<Victim> scratch_;
};

}  // namespace kvroute::oracle

#endif  // KVROUTE_TESTS_ORACLE_BLOCK_RADIX_TREE_H_
