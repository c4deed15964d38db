// The per-block original, kept as the oracle of the differential tests
// (policies/router_prefix_index.h now works on runs of blocks and must answer exactly as this
// does). Not used by the simulator.
//
// What a router that receives no KV events from the engines believes each
// replica caches: the block hashes of the requests it routed there, one
// BlockLru per replica (llm-d's approximate prefix index; Dynamo's router-side
// index under --no-kv-events; policies.md §2-3). Blocks are recorded in prompt
// order, as llm-d adds them, so the first blocks become least recent.
#ifndef KVROUTE_TESTS_ORACLE_BLOCK_ROUTER_PREFIX_INDEX_H_
#define KVROUTE_TESTS_ORACLE_BLOCK_ROUTER_PREFIX_INDEX_H_

#include <cstdint>
#include <span>
#include <vector>

#include "tests/oracle/block_lru.h"

namespace kvroute::oracle {

class BlockRouterPrefixIndex {
 public:
  // `capacity_blocks` per replica; `ttl` 0 means no expiry.
  BlockRouterPrefixIndex(uint32_t replicas, uint32_t capacity_blocks, sim::Time ttl);

  void Record(uint32_t replica, std::span<const uint64_t> chain, sim::Time now);

  // Leading blocks of `chain` the index holds for `replica` (Dynamo's
  // find_matches depth for one worker).
  uint32_t Depth(uint32_t replica, std::span<const uint64_t> chain, sim::Time now) const;

  // llm-d's match: for each block in order, the replicas holding it each count
  // one; the walk stops at the first block no replica holds. REQUIRES:
  // counts.size() == replicas; they are overwritten.
  void WalkCounts(std::span<const uint64_t> chain, sim::Time now, std::span<uint32_t> counts) const;

  void Clear(uint32_t replica) { lru_[replica].Clear(); }
  uint32_t size(uint32_t replica) const { return lru_[replica].size(); }

 private:
  std::vector<BlockLru> lru_;
};

}  // namespace kvroute::oracle

#endif  // KVROUTE_TESTS_ORACLE_BLOCK_ROUTER_PREFIX_INDEX_H_
