// What a router that receives no KV events from the engines believes each
// replica caches: the block hashes of the requests it routed there, one
// BlockLru per replica (llm-d's approximate prefix index; Dynamo's router-side
// index under --no-kv-events; policies.md §2-3). Blocks are recorded in prompt
// order, as llm-d adds them, so the first blocks become least recent.
#ifndef KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_
#define KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_

#include <cstdint>
#include <span>
#include <vector>

#include "policies/block_lru.h"

namespace kvroute::policies {

class RouterPrefixIndex {
 public:
  // `capacity_blocks` per replica; `ttl` 0 means no expiry.
  RouterPrefixIndex(uint32_t replicas, uint32_t capacity_blocks, sim::Time ttl);

  void Record(uint32_t replica, std::span<const uint64_t> chain, sim::Time now);

  // Leading blocks of `chain` the index holds for `replica` (Dynamo's
  // find_matches depth for one worker).
  uint32_t Depth(uint32_t replica, std::span<const uint64_t> chain, sim::Time now) const;

  // llm-d's match: for each block in order, the replicas holding it each count
  // one; the walk stops at the first block no replica holds. REQUIRES:
  // counts.size() == replicas; they are overwritten.
  void WalkCounts(std::span<const uint64_t> chain, sim::Time now, std::span<uint32_t> counts) const;

  void Clear(uint32_t replica) { lru_[replica].Clear(); }

 private:
  std::vector<BlockLru> lru_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_ROUTER_PREFIX_INDEX_H_
