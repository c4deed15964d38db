// SGLang's approximate radix tree (sgl-router tree.rs; policies.md §1), over
// prompt blocks instead of characters. Each tenant (replica) owns a
// prefix-closed set of blocks with a last-access time per block; the shared
// tree is their union.
//
// Invariants: a tenant's set is prefix-closed, and a block's time is never
// later than its parent's (every access refreshes the whole path from the
// root), so evicting the tenant's oldest blocks, deepest first on equal
// times, removes leaves only — tree.rs's leaf min-heap, one tenant at a time.
// Sizes count blocks per tenant where tree.rs counts characters.
//
// Kept on runs (replica_run_index.h), as tree.rs keeps its nodes: a tenant's
// entry on a node holds the node's first blocks [0, hi), all with one time,
// since a node is split wherever an access ends inside it. A match, an insert
// and a refresh cost O(nodes on the path + entries read), an eviction round
// O(entries log entries) per tenant over its limit.
#ifndef KVROUTE_POLICIES_BLOCK_RADIX_TREE_H_
#define KVROUTE_POLICIES_BLOCK_RADIX_TREE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "policies/replica_run_index.h"
#include "sim/core/time.h"

namespace kvroute::policies {

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

  uint32_t TenantSize(uint32_t tenant) const { return size_[tenant]; }

 private:
  // Evicts the tenant's `excess` first blocks in the order (time ascending,
  // depth descending, hash ascending).
  void Evict(uint32_t tenant, uint32_t excess);

  ReplicaRunIndex index_;
  std::vector<uint32_t> size_;  // blocks per tenant
  struct Candidate {
    sim::Time time;
    uint32_t entry;
    bool keeps_depth;  // of a partly evicted group: keeps its block at the cut depth
  };
  struct Tie {
    uint64_t hash;
    uint32_t candidate;  // index into scratch_
  };
  std::vector<Candidate> scratch_;
  std::vector<Tie> ties_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_BLOCK_RADIX_TREE_H_
