#include "tests/oracle/block_radix_tree.h"

#include <algorithm>

#include "sim/core/hashing.h"

namespace kvroute::oracle {

BlockRadixTree::BlockRadixTree(uint32_t tenants) : owned_(tenants) {}

BlockRadixTree::Match BlockRadixTree::PrefixMatch(std::span<const uint64_t> chain, sim::Time now) {
  Match match;
  while (match.blocks < chain.size() && owners_.count(chain[match.blocks]) > 0) ++match.blocks;
  if (match.blocks == 0) return match;
  const uint64_t deepest = chain[match.blocks - 1];
  uint64_t best_rank = 0;
  for (uint32_t t = 0; t < owned_.size(); ++t) {
    if (owned_[t].count(deepest) == 0) continue;
    uint64_t rank = sim::Combine(deepest, t);
    if (match.tenant == kNoTenant || rank < best_rank) {
      match.tenant = t;
      best_rank = rank;
    }
  }
  auto& mine = owned_[match.tenant];
  for (uint32_t i = 0; i < match.blocks; ++i) mine[chain[i]].touched = now;
  return match;
}

uint32_t BlockRadixTree::TenantMatch(uint32_t tenant, std::span<const uint64_t> chain) const {
  uint32_t depth = 0;
  while (depth < chain.size() && owned_[tenant].count(chain[depth]) > 0) ++depth;
  return depth;
}

void BlockRadixTree::Insert(std::span<const uint64_t> chain, uint32_t tenant, sim::Time now) {
  auto& mine = owned_[tenant];
  for (uint32_t i = 0; i < chain.size(); ++i) {
    auto [it, added] = mine.try_emplace(chain[i], Owned{now, i + 1});
    it->second.touched = now;
    if (added) ++owners_[chain[i]];
  }
}

uint32_t BlockRadixTree::SmallestTenant() const {
  uint32_t best = 0;
  for (uint32_t t = 1; t < owned_.size(); ++t) {
    if (owned_[t].size() < owned_[best].size()) best = t;
  }
  return best;
}

void BlockRadixTree::EvictBySize(uint32_t max_blocks) {
  for (auto& mine : owned_) {
    if (mine.size() <= max_blocks) continue;
    scratch_.clear();
    for (const auto& [hash, owned] : mine) scratch_.push_back({owned.touched, owned.depth, hash});
    // Oldest first; on equal times the deeper block, a leaf, goes first. The
    // hash breaks the remaining ties so the order is independent of the map's.
    size_t excess = mine.size() - max_blocks;
    std::partial_sort(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(excess),
                      scratch_.end(), [](const Victim& a, const Victim& b) {
                        if (a.touched != b.touched) return a.touched < b.touched;
                        if (a.depth != b.depth) return a.depth > b.depth;
                        return a.hash < b.hash;
                      });
    for (size_t i = 0; i < excess; ++i) {
      mine.erase(scratch_[i].hash);
      Release(scratch_[i].hash);
    }
  }
}

void BlockRadixTree::Release(uint64_t hash) {
  auto it = owners_.find(hash);
  if (--it->second == 0) owners_.erase(it);
}

}  // namespace kvroute::oracle
