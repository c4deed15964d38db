#include "tests/oracle/block_router_prefix_index.h"

namespace kvroute::oracle {

BlockRouterPrefixIndex::BlockRouterPrefixIndex(uint32_t replicas, uint32_t capacity_blocks,
                                               sim::Time ttl) {
  lru_.reserve(replicas);
  for (uint32_t r = 0; r < replicas; ++r) lru_.emplace_back(capacity_blocks, ttl);
}

void BlockRouterPrefixIndex::Record(uint32_t replica, std::span<const uint64_t> chain,
                                    sim::Time now) {
  for (uint64_t hash : chain) lru_[replica].Touch(hash, now);
}

uint32_t BlockRouterPrefixIndex::Depth(uint32_t replica, std::span<const uint64_t> chain,
                                       sim::Time now) const {
  uint32_t depth = 0;
  while (depth < chain.size() && lru_[replica].Contains(chain[depth], now)) ++depth;
  return depth;
}

void BlockRouterPrefixIndex::WalkCounts(std::span<const uint64_t> chain, sim::Time now,
                                        std::span<uint32_t> counts) const {
  for (uint32_t& c : counts) c = 0;
  for (uint64_t hash : chain) {
    bool any = false;
    for (size_t r = 0; r < lru_.size(); ++r) {
      if (lru_[r].Contains(hash, now)) {
        ++counts[r];
        any = true;
      }
    }
    if (!any) return;
  }
}

}  // namespace kvroute::oracle
