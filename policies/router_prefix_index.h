// What a router that receives no KV events from the engines believes each
// replica caches: the block hashes of the requests it routed there, in one LRU
// of blocks per replica with a capacity and an optional time-to-live (llm-d's
// approximate prefix index, one LRU per pod; Dynamo's router-side index under
// --no-kv-events with router_ttl_secs; policies.md §2-3). Blocks are recorded
// in prompt order, as llm-d adds them, so a prompt's first blocks become the
// least recent and are evicted first: a replica may hold a prompt's later
// blocks without its first ones.
//
// The LRUs are kept on runs (replica_run_index.h). An LRU of capacity C holds
// exactly the C most recently touched distinct blocks (those older than the
// TTL aside), so recording a chain of n blocks leaves the chain as the n most
// recent, then the rest in their old order, cut at C: a replica's entry on a
// node holds a suffix [lo, length) of the node's blocks (its first lo
// evicted), and its entries on the replica's list are ordered least recent
// first, each standing for its blocks in chain order. Record, Depth and
// WalkCounts cost O(nodes on the chain's path + entries read or evicted).
#ifndef KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_
#define KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/request_hashes.h"
#include "policies/replica_run_index.h"
#include "sim/core/time.h"

namespace kvroute::policies {

// Blocks per replica of llm-d's approximate index without autoTune
// (lruCapacityPerServer; policies.md §2): the capacity of a router's index
// when the engines' KV pool size is unknown.
inline constexpr uint32_t kDefaultIndexBlocksPerReplica = 31250;

class RouterPrefixIndex {
 public:
  // `capacity_blocks` per replica; `ttl` 0 means no expiry.
  RouterPrefixIndex(uint32_t replicas, uint32_t capacity_blocks, sim::Time ttl);

  // Touches the chain's blocks in order on `replica`'s LRU at `now`.
  void Record(uint32_t replica, std::span<const uint64_t> chain, sim::Time now);
  // The same for a request's prompt, hashed only as far as the index holds
  // it (ReplicaRunIndex::InsertPath): the same index as Record(prompt()).
  void Record(uint32_t replica, const models::RequestHashes& hashes, sim::Time now);

  // Leading blocks of `chain` the index holds for `replica` (Dynamo's
  // find_matches depth for one worker).
  uint32_t Depth(uint32_t replica, std::span<const uint64_t> chain, sim::Time now) const;
  // The same for a request's prompt, hashed only as far as it matches.
  uint32_t Depth(uint32_t replica, const models::RequestHashes& hashes, sim::Time now) const;

  // Depth for every replica at once. REQUIRES: depths.size() == replicas.
  void Depths(std::span<const uint64_t> chain, sim::Time now, std::span<uint32_t> depths) const;

  // llm-d's match: for each block in order, the replicas holding it each count
  // one; the walk stops at the first block no replica holds. REQUIRES:
  // counts.size() == replicas; they are overwritten.
  void WalkCounts(std::span<const uint64_t> chain, sim::Time now, std::span<uint32_t> counts) const;

  void Clear(uint32_t replica);

  // Blocks held for `replica` (expired ones included until evicted).
  uint32_t size(uint32_t replica) const { return size_[replica]; }

 private:
  bool Live(uint32_t e, sim::Time now) const {
    return ttl_ == 0 || now - index_.entry(e).time < ttl_;
  }
  // Evicts `blocks` blocks from the least recent end of `replica`'s LRU.
  void EvictLeastRecent(uint32_t replica, uint32_t blocks);
  void ExpireOn(uint32_t replica, sim::Time now);
  void TouchPath(uint32_t replica, std::span<const uint32_t> path, sim::Time now);
  template <typename Chain>
  uint32_t DepthOf(uint32_t replica, const Chain& chain, sim::Time now) const;

  ReplicaRunIndex index_;
  uint32_t capacity_;
  sim::Time ttl_;
  std::vector<uint32_t> size_;  // blocks held, per replica
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_
