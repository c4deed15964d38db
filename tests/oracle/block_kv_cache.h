// The prefix cache as it was first written, one hash-table entry per block
// (models/kv_cache.h before it worked on runs of blocks). Kept as the oracle
// of the differential tests: the run-based cache must make every decision it
// makes (hits, evictions, their order). Not used by the simulator.
//
// A replica's KV block pool and the prefix cache over it (DESIGN.md, "Replica").
//
// Every block of the pool is either free, private to one running request
// (partial blocks, output blocks, and full blocks not yet registered), or
// cached: indexed by its chained block hash so later requests with the same
// prefix can reuse it. A cached block is pinned while any running request uses
// it; unpinned cached blocks stay resident until evicted.
//
// Eviction order is a choice (models::EvictionOrder):
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
#ifndef KVROUTE_TESTS_ORACLE_BLOCK_KV_CACHE_H_
#define KVROUTE_TESTS_ORACLE_BLOCK_KV_CACHE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/kv_cache.h"
#include "sim/core/flat_hash_index.h"

namespace kvroute::oracle {

// What one running request holds in the pool. Owned by the request, managed
// only through KvCache.
struct BlockKvHandle {
  std::vector<uint32_t> pinned;  // cached blocks, in chain order from block 0
  uint32_t private_blocks = 0;   // blocks reserved but not in the cache
  uint32_t hit_blocks = 0;       // leading blocks found cached at admission
  bool active = false;

  uint32_t registered_blocks() const { return static_cast<uint32_t>(pinned.size()); }
  uint32_t allocated_blocks() const { return registered_blocks() + private_blocks; }
};

class BlockKvCache {
 public:
  explicit BlockKvCache(uint32_t capacity_blocks,
                        models::EvictionOrder order = models::EvictionOrder::kRadixLru);

  BlockKvCache(const BlockKvCache&) = delete;
  BlockKvCache& operator=(const BlockKvCache&) = delete;

  // Number of leading blocks of `chain` that are cached. Changes nothing.
  uint32_t MatchPrefix(models::BlockChain chain) const;

  // Admits a request whose tokens have the full-block chain `chain` and which
  // needs `total_blocks` blocks for what it computes first (its cached prefix
  // included). Pins the cached prefix (at most `max_hit_blocks` blocks), evicts
  // as needed and reserves the rest. Returns false, changing nothing, if the
  // blocks cannot be had. REQUIRES: !handle->active.
  bool Admit(models::BlockChain chain, uint32_t total_blocks, uint32_t max_hit_blocks,
             BlockKvHandle* handle);

  // Reserves `blocks` more blocks for a running request (a new chunk or a
  // decode crossing into a new block), evicting as needed. Returns false,
  // changing nothing, if they cannot be had. REQUIRES: handle->active.
  bool Grow(uint32_t blocks, BlockKvHandle* handle);

  // Makes blocks [registered, upto) of `chain` cacheable once their tokens are
  // computed. A block another request cached meanwhile is shared instead, and
  // the reserved duplicate returns to the pool. REQUIRES: handle->active.
  void Register(models::BlockChain chain, uint32_t upto, BlockKvHandle* handle);

  // Returns all of the handle's blocks: private ones to the free pool, cached
  // ones (tail first) to the eviction list once no one pins them.
  void Release(BlockKvHandle* handle);

  // Forgets every block, as a replica that failed and came back. REQUIRES: no
  // active handle refers to this cache any more.
  void Clear();

  uint32_t capacity_blocks() const { return capacity_; }
  uint32_t used_blocks() const { return cached_blocks_ + private_blocks_; }
  uint32_t cached_blocks() const { return cached_blocks_; }
  uint32_t evictable_blocks() const { return evictable_blocks_; }
  const models::KvCacheCounters& counters() const { return counters_; }

  // Hashes of the evictable blocks, in eviction order (for tests).
  std::vector<uint64_t> EvictionList() const;

  // Checks every invariant stated above; returns an empty string or the first
  // violation (for tests).
  std::string CheckInvariants() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  // A slot on the eviction list with hash 0 is a freed uncached block queued
  // behind cached ones (kVllmFreeQueue only).
  struct Block {
    uint64_t hash = 0;
    uint32_t parent = kNone;
    uint32_t children = 0;
    uint32_t pins = 0;
    uint32_t prev = kNone;  // eviction list links, while pins == 0
    uint32_t next = kNone;
  };

  // Frees room for `needed` reserved blocks. REQUIRES: enough free + evictable.
  void MakeRoom(uint32_t needed);
  void Pin(uint32_t slot);
  void Unpin(uint32_t slot);
  void ListAppend(uint32_t slot);
  void ListRemove(uint32_t slot);
  void EvictHead();

  uint32_t capacity_;
  models::EvictionOrder order_;
  std::vector<Block> blocks_;  // slots for cached blocks
  std::vector<uint32_t> free_slots_;
  sim::FlatHashIndex index_;
  uint32_t list_head_ = kNone;
  uint32_t list_tail_ = kNone;
  uint32_t cached_blocks_ = 0;
  uint32_t private_blocks_ = 0;
  uint32_t evictable_blocks_ = 0;
  uint32_t queued_free_blocks_ = 0;  // uncached blocks waiting on the list
  models::KvCacheCounters counters_;
};

}  // namespace kvroute::oracle

#endif  // KVROUTE_TESTS_ORACLE_BLOCK_KV_CACHE_H_
