#include "policies/router_prefix_index.h"

#include <algorithm>
#include <cassert>

#include "policies/prompt_chain.h"

namespace kvroute::policies {

RouterPrefixIndex::RouterPrefixIndex(uint32_t replicas, uint32_t capacity_blocks, sim::Time ttl)
    : index_(replicas), capacity_(capacity_blocks), ttl_(ttl), size_(replicas, 0) {
  assert(capacity_blocks > 0);
}

void RouterPrefixIndex::Record(uint32_t replica, std::span<const uint64_t> chain, sim::Time now) {
  if (chain.empty()) return;
  ExpireOn(replica, now);
  TouchPath(replica, index_.InsertPath(chain), now);
}

void RouterPrefixIndex::Record(uint32_t replica, const models::RequestHashes& hashes,
                               sim::Time now) {
  if (hashes.prompt_blocks() == 0) return;
  ExpireOn(replica, now);
  TouchPath(replica, index_.InsertPath(hashes), now);
}

// Expired entries go first, least recent first (as each touch of an LRU with
// a TTL begins).
void RouterPrefixIndex::ExpireOn(uint32_t replica, sim::Time now) {
  if (ttl_ == 0) return;
  for (uint32_t e = index_.ListHead(replica);
       e != ReplicaRunIndex::kNone && now - index_.entry(e).time >= ttl_;
       e = index_.ListHead(replica)) {
    size_[replica] -= index_.entry(e).hi - index_.entry(e).lo;
    index_.Remove(e);
  }
}

// Everything on the path is stamped `now`.
void RouterPrefixIndex::TouchPath(uint32_t replica, std::span<const uint32_t> path, sim::Time now) {
  uint32_t added = 0;
  for (uint32_t node : path) {
    const uint32_t length = index_.length(node);
    const uint32_t e = index_.Find(node, replica);
    if (e == ReplicaRunIndex::kNone) {
      index_.Add(node, replica, 0, length, now);
      added += length;
      continue;
    }
    ReplicaRunIndex::Entry& x = index_.entry(e);
    assert(x.hi == length);
    added += x.lo;  // its evicted first blocks come back
    x.lo = 0;
    x.time = now;
    index_.MoveToTail(e);
  }
  size_[replica] += added;
  if (size_[replica] > capacity_) EvictLeastRecent(replica, size_[replica] - capacity_);
}

void RouterPrefixIndex::EvictLeastRecent(uint32_t replica, uint32_t blocks) {
  while (blocks > 0) {
    const uint32_t e = index_.ListHead(replica);
    ReplicaRunIndex::Entry& x = index_.entry(e);
    const uint32_t evicted = std::min(blocks, x.hi - x.lo);
    x.lo += evicted;  // a run's first blocks are its least recent
    size_[replica] -= evicted;
    blocks -= evicted;
    if (x.lo == x.hi) index_.Remove(e);
  }
}

template <typename Chain>
uint32_t RouterPrefixIndex::DepthOf(uint32_t replica, const Chain& chain, sim::Time now) const {
  const uint32_t n = chain.size();
  uint32_t depth = 0;
  while (depth < n) {
    std::span<const uint64_t> known = chain.Prefix(depth + 1);
    const uint32_t node = index_.tree().Child(known[depth]);
    if (node == models::BlockRunTree::kNone) break;
    const uint32_t e = index_.Find(node, replica);
    if (e == ReplicaRunIndex::kNone || !Live(e, now) || index_.entry(e).lo > 0) break;
    const uint32_t end = std::min(n, depth + index_.length(node));
    known = chain.Prefix(end);
    const uint32_t matched = index_.MatchRun(node, models::BlockChain(known), depth, end);
    depth += matched;
    if (matched < index_.length(node)) break;
  }
  return depth;
}

uint32_t RouterPrefixIndex::Depth(uint32_t replica, std::span<const uint64_t> chain,
                                  sim::Time now) const {
  return DepthOf(replica, WholeChain{chain}, now);
}

uint32_t RouterPrefixIndex::Depth(uint32_t replica, const models::RequestHashes& hashes,
                                  sim::Time now) const {
  if (hashes.segments().empty()) return Depth(replica, hashes.prompt(), now);
  return DepthOf(replica, PromptChain{hashes}, now);
}

void RouterPrefixIndex::Depths(std::span<const uint64_t> chain, sim::Time now,
                               std::span<uint32_t> depths) const {
  std::fill(depths.begin(), depths.end(), 0);
  const models::BlockRunTree& tree = index_.tree();
  const models::BlockChain blocks(chain);
  const uint32_t n = blocks.size();
  uint32_t pos = 0;
  while (pos < n) {
    const uint32_t node = tree.Child(chain[pos]);
    if (node == models::BlockRunTree::kNone) return;
    const uint32_t matched = index_.MatchRun(node, blocks, pos, n);
    bool any = false;
    for (uint32_t e = index_.FirstOn(node); e != ReplicaRunIndex::kNone;
         e = index_.entry(e).node_next) {
      const ReplicaRunIndex::Entry& x = index_.entry(e);
      if (x.lo == 0 && depths[x.replica] == pos && Live(e, now)) {
        depths[x.replica] += matched;
        any = true;
      }
    }
    if (!any || matched < index_.length(node)) return;
    pos += matched;
  }
}

void RouterPrefixIndex::WalkCounts(std::span<const uint64_t> chain, sim::Time now,
                                   std::span<uint32_t> counts) const {
  std::fill(counts.begin(), counts.end(), 0);
  const models::BlockRunTree& tree = index_.tree();
  const models::BlockChain blocks(chain);
  const uint32_t n = blocks.size();
  uint32_t pos = 0;
  while (pos < n) {
    const uint32_t node = tree.Child(chain[pos]);
    if (node == models::BlockRunTree::kNone) return;
    const uint32_t matched = index_.MatchRun(node, blocks, pos, n);
    // Each replica holds a suffix [lo, length) of the node: the walk passes
    // the node's first block only if some replica holds the whole node.
    bool first_held = false;
    for (uint32_t e = index_.FirstOn(node); e != ReplicaRunIndex::kNone;
         e = index_.entry(e).node_next) {
      if (index_.entry(e).lo == 0 && Live(e, now)) first_held = true;
    }
    if (!first_held) return;
    for (uint32_t e = index_.FirstOn(node); e != ReplicaRunIndex::kNone;
         e = index_.entry(e).node_next) {
      const ReplicaRunIndex::Entry& x = index_.entry(e);
      if (matched > x.lo && Live(e, now)) counts[x.replica] += matched - x.lo;
    }
    if (matched < index_.length(node)) return;
    pos += matched;
  }
}

void RouterPrefixIndex::Clear(uint32_t replica) {
  for (uint32_t e = index_.ListHead(replica); e != ReplicaRunIndex::kNone;
       e = index_.ListHead(replica)) {
    index_.Remove(e);
  }
  size_[replica] = 0;
}

}  // namespace kvroute::policies
