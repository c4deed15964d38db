#include "policies/block_radix_tree.h"

#include <algorithm>
#include <cassert>

#include "sim/core/hashing.h"

namespace kvroute::policies {

BlockRadixTree::BlockRadixTree(uint32_t tenants) : index_(tenants), size_(tenants, 0) {}

BlockRadixTree::Match BlockRadixTree::PrefixMatch(std::span<const uint64_t> chain, sim::Time now) {
  const models::BlockRunTree& tree = index_.tree();
  const models::BlockChain blocks(chain);
  const uint32_t n = blocks.size();
  Match match;
  uint32_t deepest = ReplicaRunIndex::kNone;  // the node of the deepest matched block
  while (match.blocks < n) {
    const uint32_t node = tree.Child(chain[match.blocks]);
    if (node == models::BlockRunTree::kNone) break;
    const uint32_t matched = tree.MatchRun(node, blocks, match.blocks, n);
    // Tenants own [0, hi) of the node: the union owns up to the largest hi.
    uint32_t owned = 0;
    for (uint32_t e = index_.FirstOn(node); e != ReplicaRunIndex::kNone;
         e = index_.entry(e).node_next) {
      owned = std::max(owned, index_.entry(e).hi);
    }
    const uint32_t covered = std::min(matched, owned);
    if (covered == 0) break;
    deepest = node;
    match.blocks += covered;
    if (covered < tree.length(node)) break;
  }
  if (match.blocks == 0) return match;
  const uint32_t offset = match.blocks - 1 - tree.start_depth(deepest);
  const uint64_t hash = tree.hash(deepest, offset);
  uint64_t best_rank = 0;
  uint32_t chosen = ReplicaRunIndex::kNone;
  for (uint32_t e = index_.FirstOn(deepest); e != ReplicaRunIndex::kNone;
       e = index_.entry(e).node_next) {
    const ReplicaRunIndex::Entry& x = index_.entry(e);
    if (x.hi <= offset) continue;
    const uint64_t rank = sim::Combine(hash, x.replica);
    if (match.tenant == kNoTenant || rank < best_rank) {
      match.tenant = x.replica;
      best_rank = rank;
      chosen = e;
    }
  }
  // Refresh the chosen tenant's path; its blocks past the match keep their
  // time, so its entry is cut where the match ends.
  uint32_t node = deepest;
  if (index_.entry(chosen).hi > offset + 1) node = index_.SplitNode(deepest, offset + 1);
  for (; node != models::BlockRunTree::kRoot; node = tree.parent(node)) {
    const uint32_t e = index_.Find(node, match.tenant);
    assert(e != ReplicaRunIndex::kNone);
    index_.entry(e).time = now;
  }
  return match;
}

uint32_t BlockRadixTree::TenantMatch(uint32_t tenant, std::span<const uint64_t> chain) const {
  const models::BlockRunTree& tree = index_.tree();
  const models::BlockChain blocks(chain);
  const uint32_t n = blocks.size();
  uint32_t depth = 0;
  while (depth < n) {
    const uint32_t node = tree.Child(chain[depth]);
    if (node == models::BlockRunTree::kNone) break;
    const uint32_t e = index_.Find(node, tenant);
    if (e == ReplicaRunIndex::kNone) break;
    const uint32_t covered = std::min(tree.MatchRun(node, blocks, depth, n), index_.entry(e).hi);
    depth += covered;
    if (covered < tree.length(node)) break;
  }
  return depth;
}

void BlockRadixTree::Insert(std::span<const uint64_t> chain, uint32_t tenant, sim::Time now) {
  if (chain.empty()) return;
  for (uint32_t node : index_.InsertPath(chain)) {
    const uint32_t length = index_.tree().length(node);
    const uint32_t e = index_.Find(node, tenant);
    if (e == ReplicaRunIndex::kNone) {
      index_.Add(node, tenant, 0, length, now);
      size_[tenant] += length;
    } else {
      ReplicaRunIndex::Entry& x = index_.entry(e);
      size_[tenant] += length - x.hi;
      x.hi = length;
      x.time = now;
    }
  }
}

uint32_t BlockRadixTree::SmallestTenant() const {
  uint32_t best = 0;
  for (uint32_t t = 1; t < size_.size(); ++t) {
    if (size_[t] < size_[best]) best = t;
  }
  return best;
}

void BlockRadixTree::EvictBySize(uint32_t max_blocks) {
  for (uint32_t t = 0; t < size_.size(); ++t) {
    if (size_[t] > max_blocks) Evict(t, size_[t] - max_blocks);
  }
}

void BlockRadixTree::Evict(uint32_t tenant, uint32_t excess) {
  const models::BlockRunTree& tree = index_.tree();
  scratch_.clear();
  for (uint32_t e = index_.ListHead(tenant); e != ReplicaRunIndex::kNone;
       e = index_.entry(e).list_next) {
    scratch_.push_back({index_.entry(e).time, e, false});
  }
  std::sort(scratch_.begin(), scratch_.end(), [](const Candidate& a, const Candidate& b) {
    return a.time != b.time ? a.time < b.time : a.entry < b.entry;
  });
  // The blocks of entry e have depths (start, start + hi], 1 for a prompt's
  // first block.
  auto start = [&](uint32_t e) { return tree.start_depth(index_.entry(e).node); };
  size_t i = 0;
  while (excess > 0) {
    size_t j = i;
    uint64_t group = 0;
    while (j < scratch_.size() && scratch_[j].time == scratch_[i].time) {
      group += index_.entry(scratch_[j].entry).hi;
      ++j;
    }
    if (group <= excess) {  // the whole group goes
      for (size_t k = i; k < j; ++k) index_.Remove(scratch_[k].entry);
      size_[tenant] -= static_cast<uint32_t>(group);
      excess -= static_cast<uint32_t>(group);
      i = j;
      continue;
    }
    // Part of the group goes, deepest first: all blocks deeper than some D,
    // and at depth D the `ties` with the least hashes.
    auto at_least = [&](uint32_t d) {  // blocks of the group at depth >= d
      uint64_t count = 0;
      for (size_t k = i; k < j; ++k) {
        const uint32_t s = start(scratch_[k].entry), end = s + index_.entry(scratch_[k].entry).hi;
        if (end >= d) count += end - std::max(s + 1, d) + 1;
      }
      return count;
    };
    uint32_t lo = 1, hi = 1;  // at_least(lo) >= excess; find the largest such depth
    for (size_t k = i; k < j; ++k) {
      hi = std::max(hi, start(scratch_[k].entry) + index_.entry(scratch_[k].entry).hi);
    }
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (at_least(mid) >= excess) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const uint32_t depth = lo;
    const uint64_t ties = excess - at_least(depth + 1);
    ties_.clear();
    for (size_t k = i; k < j; ++k) {
      const uint32_t e = scratch_[k].entry, s = start(e);
      if (s < depth && depth <= s + index_.entry(e).hi) {
        ties_.push_back({tree.hash(index_.entry(e).node, depth - s - 1), static_cast<uint32_t>(k)});
      }
    }
    std::sort(ties_.begin(), ties_.end(),
              [](const Tie& a, const Tie& b) { return a.hash < b.hash; });
    // Blocks at depth D whose hashes are not among the least stay.
    for (size_t k = ties; k < ties_.size(); ++k) scratch_[ties_[k].candidate].keeps_depth = true;
    for (size_t k = i; k < j; ++k) {
      const uint32_t e = scratch_[k].entry, s = start(e);
      ReplicaRunIndex::Entry& x = index_.entry(e);
      const uint32_t keep =
          scratch_[k].keeps_depth ? depth - s : std::min(x.hi, depth > s + 1 ? depth - 1 - s : 0);
      size_[tenant] -= x.hi - keep;
      if (keep == 0) {
        index_.Remove(e);
      } else {
        x.hi = keep;
      }
    }
    excess = 0;
  }
}

}  // namespace kvroute::policies
