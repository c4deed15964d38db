#include "models/kv_cache.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "sim/core/slot_pool.h"

// The cached blocks form a tree (a block's parent is the one before it in its
// chain); tree_ stores it as runs of blocks, and everything the block-level
// semantics of kv_cache.h track per block is uniform along a node's run:
//  - pins: a request pins the path from the root to its handle's node, whole
//    nodes only, since a node is split where a request's pinned prefix ends
//    inside it (at admission and at registration);
//  - place on the eviction list: a node whose pins drop to zero releases all
//    its blocks at once, tail first, so they are contiguous on the block-level
//    list; the list holds nodes, each standing for its blocks tail first. A
//    split of a listed node keeps both parts contiguous (the part nearer the
//    root follows), and pinning a part removes only it;
//  - eviction takes blocks from the tail of the head node, a leaf, and removes
//    the node once it is empty: the block-level list's head, block by block.
// Freed uncached blocks queued under kVllmFreeQueue are counted in runs.
// Invariants: every node with no pins is on the list, and no other node;
// pins(parent) >= pins(child); the first cached item of the list is a leaf.

namespace kvroute::models {

KvCache::KvCache(uint32_t capacity_blocks, EvictionOrder order)
    : capacity_(capacity_blocks), order_(order), state_(1) {}

KvCache::NodeState& KvCache::State(uint32_t node) {
  if (state_.size() < tree_.node_slots()) state_.resize(tree_.node_slots());
  return state_[node];
}

uint32_t KvCache::MatchPrefix(BlockChain chain) const {
  uint32_t pos = 0;
  const uint32_t end = chain.size();
  while (pos < end) {
    const uint32_t c = tree_.Child(chain[pos]);
    if (c == BlockRunTree::kNone) break;
    const uint32_t matched = tree_.MatchRun(c, chain, pos, end);
    pos += matched;
    if (matched < tree_.length(c)) break;
  }
  return pos;
}

void KvCache::MatchPrefixMany(std::span<const KvCache* const> caches, BlockChain chain,
                              std::span<uint32_t> out, std::vector<uint32_t>* scratch,
                              const FirstBlockFilter* filter) {
  assert(out.size() == caches.size());
  std::fill(out.begin(), out.end(), 0);
  const uint32_t end = chain.size();
  if (end == 0) return;
  // scratch holds (cache, child) pairs of the caches still walking.
  std::vector<uint32_t>& walking = *scratch;
  walking.clear();
  for (uint32_t i = 0; i < caches.size(); ++i) {
    walking.push_back(i);
    walking.push_back(BlockRunTree::kNone);
  }
  while (!walking.empty()) {
    if (filter != nullptr) {
      // Where no cache has a node starting with the next block, a walk ends
      // without asking its cache's index (typically where a prompt's own
      // tokens start, the same block for every cache).
      size_t kept = 0;
      for (size_t k = 0; k < walking.size(); k += 2) {
        if (!filter->MayStart(chain[out[walking[k]]])) continue;
        walking[kept] = walking[k];
        kept += 2;
      }
      walking.resize(kept);
    }
    for (size_t k = 0; k < walking.size(); k += 2) {
      caches[walking[k]]->tree_.PrefetchChild(chain[out[walking[k]]]);
    }
    for (size_t k = 0; k < walking.size(); k += 2) {
      const BlockRunTree& tree = caches[walking[k]]->tree_;
      walking[k + 1] = tree.Child(chain[out[walking[k]]]);
      if (walking[k + 1] != BlockRunTree::kNone) tree.PrefetchNode(walking[k + 1]);
    }
    for (size_t k = 0; k < walking.size(); k += 2) {
      if (walking[k + 1] != BlockRunTree::kNone)
        caches[walking[k]]->tree_.PrefetchLast(walking[k + 1]);
    }
    size_t kept = 0;
    for (size_t k = 0; k < walking.size(); k += 2) {
      const uint32_t i = walking[k], child = walking[k + 1];
      if (child == BlockRunTree::kNone) continue;
      const BlockRunTree& tree = caches[i]->tree_;
      const uint32_t matched = tree.MatchRun(child, chain, out[i], end);
      out[i] += matched;
      if (matched < tree.length(child) || out[i] == end) continue;
      walking[kept] = i;
      kept += 2;
    }
    walking.resize(kept);
  }
}

uint32_t KvCache::Walk(BlockChain chain, uint32_t limit) const {
  path_.clear();
  uint32_t pos = 0;
  while (pos < limit) {
    const uint32_t c = tree_.Child(chain[pos]);
    if (c == BlockRunTree::kNone) break;
    const uint32_t matched = tree_.MatchRun(c, chain, pos, limit);
    path_.push_back({c, matched});
    pos += matched;
    if (matched < tree_.length(c)) break;
  }
  return pos;
}

bool KvCache::Admit(BlockChain chain, uint32_t total_blocks, uint32_t max_hit_blocks,
                    KvHandle* handle) {
  assert(!handle->active);
  const uint32_t hit = Walk(chain, std::min({chain.size(), max_hit_blocks, total_blocks}));
  // Hit blocks that are evictable now will be pinned, so they cannot also be
  // evicted to make room.
  uint32_t hit_evictable = 0;
  for (const Step& step : path_) {
    if (state_[step.node].pins == 0) hit_evictable += step.blocks;
  }
  const uint32_t needed = total_blocks - hit;
  const uint32_t free_now = capacity_ - used_blocks();
  if (static_cast<uint64_t>(free_now) + (evictable_blocks_ - hit_evictable) < needed) return false;

  ++counters_.lookups;
  counters_.hit_blocks += hit;
  uint32_t last = BlockRunTree::kRoot;
  for (const Step& step : path_) {
    last = step.blocks < tree_.length(step.node) ? SplitAt(step.node, step.blocks) : step.node;
    Pin(last);
  }
  MakeRoom(needed);
  private_blocks_ += needed;
  handle->node = last;
  handle->registered = hit;
  handle->private_blocks = needed;
  handle->hit_blocks = hit;
  handle->active = true;
  return true;
}

bool KvCache::Grow(uint32_t blocks, KvHandle* handle) {
  assert(handle->active);
  if (static_cast<uint64_t>(capacity_ - used_blocks()) + evictable_blocks_ < blocks) return false;
  MakeRoom(blocks);
  private_blocks_ += blocks;
  handle->private_blocks += blocks;
  return true;
}

void KvCache::Register(BlockChain chain, uint32_t upto, KvHandle* handle) {
  assert(handle->active && upto <= chain.size());
  assert(upto <= handle->registered || handle->private_blocks >= upto - handle->registered);
  uint32_t j = handle->registered;
  uint32_t node = handle->node;
  while (j < upto) {
    // The handle's node ends with block j - 1. If only this request pins it
    // and nothing follows it, block j is cached nowhere: extend the node if
    // it has room (a node this request made, with room for its decodes), or
    // else start a child, rather than move a run others will split again.
    if (node != BlockRunTree::kRoot && state_[node].pins == 1 && tree_.children(node) == 0 &&
        tree_.spare(node) >= upto - j) {
      tree_.Append(node, chain, j, upto);
      if (listener_ != nullptr) listener_->OnBlocksStored(chain, j, upto);
      cached_blocks_ += upto - j;
      j = upto;
      break;
    }
    uint32_t child = tree_.Child(chain[j]);
    if (child == BlockRunTree::kNone) {
      // Room for the rest of the chain, which this request may yet compute.
      child = tree_.AddChild(node, chain, j, upto, chain.size() - upto);
      if (listener_ != nullptr) listener_->OnBlocksStored(chain, j, upto);
      State(child) = NodeState{.pins = 1, .links = {}};
      cached_blocks_ += upto - j;
      j = upto;
      node = child;
      break;
    }
    // Computed twice: keep the cached copy (SGLang's radix insert); the
    // reserved duplicates return to the pool.
    const uint32_t matched = tree_.MatchRun(child, chain, j, upto);
    node = matched < tree_.length(child) ? SplitAt(child, matched) : child;
    Pin(node);
    j += matched;
  }
  const uint32_t added = upto > handle->registered ? upto - handle->registered : 0;
  handle->private_blocks -= added;
  private_blocks_ -= added;
  if (added > 0) {
    handle->node = node;
    handle->registered = upto;
  }
}

void KvCache::Release(KvHandle* handle) {
  assert(handle->active);
  // A request's uncached blocks follow its cached prefix in its block table,
  // so freed tail first they join the queue before it (kVllmFreeQueue).
  if (order_ == EvictionOrder::kVllmFreeQueue && handle->private_blocks > 0) {
    QueueFreeBlocks(handle->private_blocks);
  }
  for (uint32_t n = handle->node; n != BlockRunTree::kRoot; n = tree_.parent(n)) Unpin(n);
  private_blocks_ -= handle->private_blocks;
  *handle = KvHandle{};
}

void KvCache::Clear() {
  if (listener_ != nullptr) listener_->OnAllBlocksCleared();
  tree_.Clear();
  state_.assign(1, NodeState{});
  free_runs_.clear();
  spare_free_runs_.clear();
  list_head_ = list_tail_ = kNone;
  cached_blocks_ = private_blocks_ = evictable_blocks_ = queued_free_blocks_ = 0;
}

uint32_t KvCache::SplitAt(uint32_t node, uint32_t keep) {
  const uint32_t upper = tree_.Split(node, keep);
  const uint32_t pins = State(node).pins;
  state_[upper] = NodeState{.pins = pins, .links = {}};
  if (pins == 0) ListInsertAfter(node, upper);
  return upper;
}

void KvCache::Pin(uint32_t node) {
  if (state_[node].pins++ == 0) {
    ListRemove(node);
    evictable_blocks_ -= tree_.length(node);
  }
}

void KvCache::Unpin(uint32_t node) {
  assert(state_[node].pins > 0);
  if (--state_[node].pins == 0) {
    ListAppend(node);
    evictable_blocks_ += tree_.length(node);
  }
}

void KvCache::QueueFreeBlocks(uint32_t blocks) {
  queued_free_blocks_ += blocks;
  if (list_tail_ != kNone && (list_tail_ & kFreeRun) != 0) {
    free_runs_[list_tail_ & ~kFreeRun].blocks += blocks;  // queued blocks are alike
    return;
  }
  const uint32_t index = sim::TakeSlot(free_runs_, spare_free_runs_);
  free_runs_[index].blocks = blocks;
  ListAppend(index | kFreeRun);
}

KvCache::Links& KvCache::LinksOf(uint32_t item) {
  return (item & kFreeRun) != 0 ? free_runs_[item & ~kFreeRun].links : state_[item].links;
}

uint32_t KvCache::ItemBlocks(uint32_t item) const {
  return (item & kFreeRun) != 0 ? free_runs_[item & ~kFreeRun].blocks : tree_.length(item);
}

void KvCache::ListInsertAfter(uint32_t after, uint32_t item) {
  const uint32_t next = after == kNone ? list_head_ : LinksOf(after).next;
  LinksOf(item) = Links{.prev = after, .next = next};
  (after == kNone ? list_head_ : LinksOf(after).next) = item;
  (next == kNone ? list_tail_ : LinksOf(next).prev) = item;
}

void KvCache::ListRemove(uint32_t item) {
  const Links links = LinksOf(item);
  (links.prev == kNone ? list_head_ : LinksOf(links.prev).next) = links.next;
  (links.next == kNone ? list_tail_ : LinksOf(links.next).prev) = links.prev;
  LinksOf(item) = Links{};
}

void KvCache::MakeRoom(uint32_t needed) {
  // Free blocks not queued on the list are taken first; then the list head,
  // whether queued free blocks or cached ones to evict, as many as missing.
  while (capacity_ - used_blocks() - queued_free_blocks_ < needed) {
    const uint32_t missing = needed - (capacity_ - used_blocks() - queued_free_blocks_);
    const uint32_t item = list_head_;
    assert(item != kNone);
    if ((item & kFreeRun) != 0) {
      FreeRun& run = free_runs_[item & ~kFreeRun];
      const uint32_t taken = std::min(missing, run.blocks);
      run.blocks -= taken;
      queued_free_blocks_ -= taken;
      if (run.blocks == 0) {
        ListRemove(item);
        spare_free_runs_.push_back(item & ~kFreeRun);
      }
      continue;
    }
    assert(tree_.children(item) == 0 && "eviction must take leaves first");
    const uint32_t length = tree_.length(item);
    const uint32_t evicted = std::min(missing, length);
    if (offload_ != nullptr) {
      for (uint32_t k = length; k > length - evicted; --k) offload_->Store(tree_.hash(item, k - 1));
    }
    evictable_blocks_ -= evicted;
    cached_blocks_ -= evicted;
    counters_.evictions += evicted;
    if (listener_ != nullptr) listener_->OnBlocksRemoved(tree_.run(item).last(evicted));
    if (evicted == length) {
      ListRemove(item);
      tree_.Remove(item);
    } else {
      tree_.TruncateTail(item, evicted);
    }
  }
}

std::vector<uint64_t> KvCache::EvictionList() const {
  std::vector<uint64_t> order;
  for (uint32_t item = list_head_; item != kNone;) {
    const bool free_run = (item & kFreeRun) != 0;
    if (!free_run) {
      for (uint32_t k = tree_.length(item); k > 0; --k) order.push_back(tree_.hash(item, k - 1));
    }
    item = free_run ? free_runs_[item & ~kFreeRun].links.next : state_[item].links.next;
  }
  return order;
}

std::string KvCache::CheckInvariants() const {
  if (used_blocks() > capacity_) return "used blocks exceed capacity";
  if (std::string tree = tree_.CheckInvariants(); !tree.empty()) return "tree: " + tree;
  uint32_t cached = 0, unpinned_nodes = 0;
  for (uint32_t n = 1; n < tree_.node_slots(); ++n) {
    if (tree_.parent(n) == BlockRunTree::kNone) continue;
    cached += tree_.length(n);
    if (state_[n].pins == 0) ++unpinned_nodes;
    if (tree_.parent(n) != BlockRunTree::kRoot && state_[tree_.parent(n)].pins < state_[n].pins)
      return "node pinned more than its parent";
  }
  if (cached != cached_blocks_) return "cached block count differs from the tree's";
  uint32_t listed = 0, listed_nodes = 0, queued_free = 0;
  bool first_cached = true;
  for (uint32_t item = list_head_; item != kNone;) {
    if ((item & kFreeRun) != 0) {
      const FreeRun& run = free_runs_[item & ~kFreeRun];
      if (run.blocks == 0) return "empty run of queued free blocks";
      queued_free += run.blocks;
      item = run.links.next;
      continue;
    }
    if (tree_.parent(item) == BlockRunTree::kNone) return "removed node on the eviction list";
    if (state_[item].pins != 0) return "pinned block on the eviction list";
    if (first_cached && tree_.children(item) != 0)
      return "first cached block on the list is not a leaf";
    first_cached = false;
    listed += tree_.length(item);
    ++listed_nodes;
    item = state_[item].links.next;
  }
  if (listed != evictable_blocks_) return "eviction list length differs from its count";
  if (listed_nodes != unpinned_nodes) return "unpinned node missing from the eviction list";
  if (queued_free != queued_free_blocks_) return "queued free blocks differ from their count";
  if (order_ == EvictionOrder::kRadixLru && queued_free != 0)
    return "queued free block in radix mode";
  if (used_blocks() + queued_free > capacity_) return "queued free blocks exceed free room";
  return "";
}

}  // namespace kvroute::models
