// The per-block original, kept as the oracle of the differential tests
// (policies/router_prefix_index.h now works on runs of blocks and must answer exactly as this
// does). Not used by the simulator.
//
// A bounded set of block hashes in least-recently-used order, with an optional
// time-to-live: the per-worker index that routers without engine KV events keep
// from their own routing decisions (llm-d's approximate prefix index, one LRU
// per pod; Dynamo's router-side index with router_ttl_secs; policies.md §2-3).
// Allocation happens once, at construction.
#ifndef KVROUTE_TESTS_ORACLE_BLOCK_LRU_H_
#define KVROUTE_TESTS_ORACLE_BLOCK_LRU_H_

#include <cstdint>
#include <vector>

#include "sim/core/flat_hash_index.h"
#include "sim/core/time.h"

namespace kvroute::oracle {

class BlockLru {
 public:
  // `ttl` 0 means entries never expire. REQUIRES: capacity > 0.
  BlockLru(uint32_t capacity, sim::Time ttl);

  // Whether `hash` was touched within the TTL before `now` and not evicted.
  bool Contains(uint64_t hash, sim::Time now) const;

  // Inserts `hash` or refreshes it as most recently used; evicts the least
  // recently used entry when full, and any that expired.
  void Touch(uint64_t hash, sim::Time now);

  void Clear();
  uint32_t size() const { return index_.Size(); }

 private:
  static uint64_t Key(uint64_t hash) { return hash == 0 ? 1 : hash; }  // 0 marks empty
  void Unlink(uint32_t slot);
  void PushFront(uint32_t slot);
  void EvictTail();

  struct Node {
    uint64_t key = 0;
    sim::Time touched = 0;
    uint32_t prev = kNone, next = kNone;
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  sim::Time ttl_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_;
  uint32_t head_ = kNone, tail_ = kNone;  // most / least recently used
  sim::FlatHashIndex index_;              // key -> slot in nodes_
};

}  // namespace kvroute::oracle

#endif  // KVROUTE_TESTS_ORACLE_BLOCK_LRU_H_
