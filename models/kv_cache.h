// A replica's KV block pool and the prefix cache over it (DESIGN.md, "Replica").
//
// Every block of the pool is either free, private to one running request
// (partial blocks, output blocks, and full blocks not yet registered), or
// cached: indexed by its chained block hash so later requests with the same
// prefix can reuse it. A cached block is pinned while any running request uses
// it; unpinned cached blocks stay resident until evicted.
//
// Eviction order is a choice (EvictionOrder):
//  - kRadixLru (SGLang's RadixAttention): blocks never cached, or freed without
//    a hash, are reused first; only when none is left is the least recently
//    released cached block evicted. Unpinned cached blocks sit on one list in
//    the order they were released, and a request releases its blocks tail
//    first. Since a request pins a whole prefix of its chain, a block's pin
//    count is never below its child's, so a child always joins the list before
//    its parent and the list head is always a leaf.
//  - kVllmFreeQueue (vLLM v1's free block queue): every freed block, cached or
//    not, joins one queue in the order freed (a request's blocks tail first)
//    and allocation takes the queue head, evicting it if it holds a cached
//    block. A freed uncached block (output, partial or duplicate) therefore
//    waits behind older cached blocks, and those are evicted before it is
//    reused: less of the pool holds cache than under kRadixLru.
//
// These are block-level semantics; the cache keeps them on runs of blocks
// (block_run_tree.h), so every operation costs O(nodes touched), not
// O(blocks): how is in kv_cache.cc.
#ifndef KVROUTE_MODELS_KV_CACHE_H_
#define KVROUTE_MODELS_KV_CACHE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/block_run_tree.h"
#include "models/kv_events.h"
#include "models/kv_tier.h"

namespace kvroute::models {

// What one running request holds in the pool. Owned by the request, managed
// only through KvCache.
struct KvHandle {
  // The cache node ending with the last block this request pins: it pins the
  // path from the root to it, `registered` blocks, its chain's first ones.
  uint32_t node = BlockRunTree::kRoot;
  uint32_t registered = 0;
  uint32_t private_blocks = 0;  // blocks reserved but not in the cache
  uint32_t hit_blocks = 0;      // leading blocks found cached at admission
  bool active = false;

  uint32_t registered_blocks() const { return registered; }
  uint32_t allocated_blocks() const { return registered + private_blocks; }
};

struct KvCacheCounters {
  uint64_t lookups = 0;
  uint64_t hit_blocks = 0;
  uint64_t evictions = 0;
};

enum class EvictionOrder { kRadixLru, kVllmFreeQueue };

class KvCache {
 public:
  explicit KvCache(uint32_t capacity_blocks, EvictionOrder order = EvictionOrder::kRadixLru);

  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  // Number of leading blocks of `chain` that are cached. Changes nothing.
  uint32_t MatchPrefix(BlockChain chain) const;

  // MatchPrefix of every cache at once, out[i] for caches[i]: the caches are
  // walked in lockstep, a node at a time, so that their memory reads overlap
  // instead of following one another. A cache is asked about a block only if
  // `filter` (when given) says some cache may have a node starting with it.
  // `scratch` is working space. REQUIRES: out.size() == caches.size(); a
  // filter counts every cache's nodes (AttachFirstBlockFilter).
  static void MatchPrefixMany(std::span<const KvCache* const> caches, BlockChain chain,
                              std::span<uint32_t> out, std::vector<uint32_t>* scratch,
                              const FirstBlockFilter* filter = nullptr);
  // The filter counts this cache's nodes from now on.
  void AttachFirstBlockFilter(FirstBlockFilter* filter) { filter->Attach(&tree_); }

  // Admits a request whose tokens have the full-block chain `chain` and which
  // needs `total_blocks` blocks for what it computes first (its cached prefix
  // included). Pins the cached prefix (at most `max_hit_blocks` blocks), evicts
  // as needed and reserves the rest. Returns false, changing nothing, if the
  // blocks cannot be had. REQUIRES: !handle->active.
  bool Admit(BlockChain chain, uint32_t total_blocks, uint32_t max_hit_blocks, KvHandle* handle);

  // Reserves `blocks` more blocks for a running request (a new chunk or a
  // decode crossing into a new block), evicting as needed. Returns false,
  // changing nothing, if they cannot be had. REQUIRES: handle->active.
  bool Grow(uint32_t blocks, KvHandle* handle);

  // Makes blocks [registered, upto) of `chain` cacheable once their tokens are
  // computed. A block another request cached meanwhile is shared instead, and
  // the reserved duplicate returns to the pool. REQUIRES: handle->active.
  void Register(BlockChain chain, uint32_t upto, KvHandle* handle);

  // Returns all of the handle's blocks: private ones to the free pool, cached
  // ones (tail first) to the eviction list once no one pins them.
  void Release(KvHandle* handle);

  // Forgets every block, as a replica that failed and came back. REQUIRES: no
  // active handle refers to this cache any more.
  void Clear();

  // Tells `listener` of every block stored, evicted or cleared from now on;
  // null (the default) tells no one. Must outlive the cache or be reset.
  void set_event_listener(KvEventListener* listener) { listener_ = listener; }
  // From now on every evicted block is copied to `tier` (OffloadRule::kOnEvict),
  // tail first. Null: evictions drop blocks (the default).
  void OffloadEvictionsTo(HostKvTier* tier) { offload_ = tier; }

  uint32_t capacity_blocks() const { return capacity_; }
  uint32_t used_blocks() const { return cached_blocks_ + private_blocks_; }
  uint32_t cached_blocks() const { return cached_blocks_; }
  uint32_t evictable_blocks() const { return evictable_blocks_; }
  const KvCacheCounters& counters() const { return counters_; }

  // Hashes of the evictable blocks, in eviction order (for tests).
  std::vector<uint64_t> EvictionList() const;

  // Checks every invariant stated above; returns an empty string or the first
  // violation (for tests).
  std::string CheckInvariants() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Eviction-list items are tree nodes, or (with this bit) runs of freed
  // uncached blocks queued behind cached ones (kVllmFreeQueue only).
  static constexpr uint32_t kFreeRun = 1u << 31;

  struct Links {
    uint32_t prev = kNone;
    uint32_t next = kNone;
  };
  struct NodeState {
    uint32_t pins = 0;
    Links links;  // on the eviction list while pins == 0
  };
  struct FreeRun {
    uint32_t blocks = 0;
    Links links;
  };

  // Walks `chain` from the root: fills path_ with the nodes it matches in
  // chain order and the blocks matched in each; returns the blocks matched
  // (at most `limit`).
  uint32_t Walk(BlockChain chain, uint32_t limit) const;
  // Makes `node` end after its first `keep` blocks by splitting it; returns
  // the node holding those blocks.
  uint32_t SplitAt(uint32_t node, uint32_t keep);
  // Frees room for `needed` reserved blocks. REQUIRES: enough free + evictable.
  void MakeRoom(uint32_t needed);
  void Pin(uint32_t node);
  void Unpin(uint32_t node);
  Links& LinksOf(uint32_t item);
  uint32_t ItemBlocks(uint32_t item) const;
  void ListInsertAfter(uint32_t after, uint32_t item);
  void ListAppend(uint32_t item) { ListInsertAfter(list_tail_, item); }
  void ListRemove(uint32_t item);
  void QueueFreeBlocks(uint32_t blocks);
  NodeState& State(uint32_t node);

  uint32_t capacity_;
  EvictionOrder order_;
  BlockRunTree tree_;
  std::vector<NodeState> state_;  // per tree node
  std::vector<FreeRun> free_runs_;
  std::vector<uint32_t> spare_free_runs_;
  uint32_t list_head_ = kNone;
  uint32_t list_tail_ = kNone;
  uint32_t cached_blocks_ = 0;
  uint32_t private_blocks_ = 0;
  uint32_t evictable_blocks_ = 0;
  uint32_t queued_free_blocks_ = 0;  // uncached blocks waiting on the list
  KvCacheCounters counters_;
  KvEventListener* listener_ = nullptr;
  HostKvTier* offload_ = nullptr;
  struct Step {
    uint32_t node;
    uint32_t blocks;  // of the node's, matched
  };
  mutable std::vector<Step> path_;  // Walk's result
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_KV_CACHE_H_
