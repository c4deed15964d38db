#include "tests/oracle/block_kv_cache.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace kvroute::oracle {

BlockKvCache::BlockKvCache(uint32_t capacity_blocks, models::EvictionOrder order)
    : capacity_(capacity_blocks), order_(order), blocks_(capacity_blocks), index_(capacity_blocks) {
  free_slots_.reserve(capacity_blocks);
  for (uint32_t s = capacity_blocks; s > 0; --s) free_slots_.push_back(s - 1);
}

uint32_t BlockKvCache::MatchPrefix(models::BlockChain chain) const {
  uint32_t n = 0;
  while (n < chain.size() && index_.Find(chain[n]) != sim::FlatHashIndex::kAbsent) ++n;
  return n;
}

bool BlockKvCache::Admit(models::BlockChain chain, uint32_t total_blocks, uint32_t max_hit_blocks,
                         BlockKvHandle* handle) {
  assert(!handle->active);
  uint32_t hit = std::min({MatchPrefix(chain), max_hit_blocks, total_blocks});
  // Hit blocks that are evictable now will be pinned, so they cannot also be
  // evicted to make room.
  uint32_t hit_evictable = 0;
  for (uint32_t j = 0; j < hit; ++j) {
    if (blocks_[index_.Find(chain[j])].pins == 0) ++hit_evictable;
  }
  uint32_t needed = total_blocks - hit;
  uint32_t free_now = capacity_ - used_blocks();
  if (static_cast<uint64_t>(free_now) + (evictable_blocks_ - hit_evictable) < needed) return false;

  ++counters_.lookups;
  counters_.hit_blocks += hit;
  handle->pinned.clear();
  for (uint32_t j = 0; j < hit; ++j) {
    uint32_t slot = index_.Find(chain[j]);
    Pin(slot);
    handle->pinned.push_back(slot);
  }
  MakeRoom(needed);
  private_blocks_ += needed;
  handle->private_blocks = needed;
  handle->hit_blocks = hit;
  handle->active = true;
  return true;
}

bool BlockKvCache::Grow(uint32_t blocks, BlockKvHandle* handle) {
  assert(handle->active);
  if (static_cast<uint64_t>(capacity_ - used_blocks()) + evictable_blocks_ < blocks) return false;
  MakeRoom(blocks);
  private_blocks_ += blocks;
  handle->private_blocks += blocks;
  return true;
}

void BlockKvCache::MakeRoom(uint32_t needed) {
  // Free blocks not queued on the list are taken first; then the list head,
  // whether a queued free block or a cached one to evict.
  while (capacity_ - used_blocks() - queued_free_blocks_ < needed) EvictHead();
}

void BlockKvCache::Register(models::BlockChain chain, uint32_t upto, BlockKvHandle* handle) {
  assert(handle->active && upto <= chain.size());
  for (uint32_t j = handle->registered_blocks(); j < upto; ++j) {
    uint32_t parent = j == 0 ? kNone : handle->pinned[j - 1];
    uint32_t slot = index_.Find(chain[j]);
    assert(handle->private_blocks > 0);
    --handle->private_blocks;
    --private_blocks_;
    if (slot != sim::FlatHashIndex::kAbsent) {
      Pin(slot);  // computed twice; keep the cached copy (SGLang's radix insert)
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      blocks_[slot] = Block{.hash = chain[j], .parent = parent, .pins = 1};
      if (parent != kNone) ++blocks_[parent].children;
      index_.Insert(chain[j], slot);
      ++cached_blocks_;
    }
    handle->pinned.push_back(slot);
  }
}

void BlockKvCache::Release(BlockKvHandle* handle) {
  assert(handle->active);
  // A request's uncached blocks follow its cached prefix in its block table,
  // so freed tail first they join the queue before it (kVllmFreeQueue).
  if (order_ == models::EvictionOrder::kVllmFreeQueue) {
    for (uint32_t i = 0; i < handle->private_blocks; ++i) {
      uint32_t slot = free_slots_.back();
      free_slots_.pop_back();
      blocks_[slot] = Block{};
      ListAppend(slot);
    }
  }
  for (auto it = handle->pinned.rbegin(); it != handle->pinned.rend(); ++it) Unpin(*it);
  private_blocks_ -= handle->private_blocks;
  handle->pinned.clear();
  handle->private_blocks = 0;
  handle->hit_blocks = 0;
  handle->active = false;
}

void BlockKvCache::Clear() {
  std::fill(blocks_.begin(), blocks_.end(), Block{});
  free_slots_.clear();
  for (uint32_t s = capacity_; s > 0; --s) free_slots_.push_back(s - 1);
  index_.Clear();
  list_head_ = list_tail_ = kNone;
  cached_blocks_ = private_blocks_ = evictable_blocks_ = queued_free_blocks_ = 0;
}

void BlockKvCache::Pin(uint32_t slot) {
  Block& b = blocks_[slot];
  if (b.pins++ == 0) ListRemove(slot);
}

void BlockKvCache::Unpin(uint32_t slot) {
  Block& b = blocks_[slot];
  assert(b.pins > 0);
  if (--b.pins == 0) ListAppend(slot);
}

void BlockKvCache::ListAppend(uint32_t slot) {
  Block& b = blocks_[slot];
  b.prev = list_tail_;
  b.next = kNone;
  if (list_tail_ != kNone) blocks_[list_tail_].next = slot;
  list_tail_ = slot;
  if (list_head_ == kNone) list_head_ = slot;
  if (b.hash == 0)
    ++queued_free_blocks_;
  else
    ++evictable_blocks_;
}

void BlockKvCache::ListRemove(uint32_t slot) {
  Block& b = blocks_[slot];
  if (b.prev != kNone)
    blocks_[b.prev].next = b.next;
  else
    list_head_ = b.next;
  if (b.next != kNone)
    blocks_[b.next].prev = b.prev;
  else
    list_tail_ = b.prev;
  b.prev = b.next = kNone;
  if (b.hash == 0)
    --queued_free_blocks_;
  else
    --evictable_blocks_;
}

void BlockKvCache::EvictHead() {
  uint32_t slot = list_head_;
  assert(slot != kNone);
  ListRemove(slot);
  Block& b = blocks_[slot];
  if (b.hash == 0) {  // a queued free block: reuse it, nothing to evict
    free_slots_.push_back(slot);
    return;
  }
  assert(b.children == 0 && "eviction must take leaves first");
  if (b.parent != kNone) --blocks_[b.parent].children;
  index_.Erase(b.hash);
  b = Block{};
  free_slots_.push_back(slot);
  --cached_blocks_;
  ++counters_.evictions;
}

std::vector<uint64_t> BlockKvCache::EvictionList() const {
  std::vector<uint64_t> order;
  for (uint32_t s = list_head_; s != kNone; s = blocks_[s].next) {
    if (blocks_[s].hash != 0) order.push_back(blocks_[s].hash);
  }
  return order;
}

std::string BlockKvCache::CheckInvariants() const {
  if (used_blocks() > capacity_) return "used blocks exceed capacity";
  if (index_.Size() != cached_blocks_) return "index size differs from cached block count";
  uint32_t listed = 0, queued_free = 0;
  bool first_cached = true;
  for (uint32_t s = list_head_; s != kNone; s = blocks_[s].next) {
    const Block& b = blocks_[s];
    if (b.pins != 0) return "pinned block on the eviction list";
    if (b.hash == 0) {
      ++queued_free;
      continue;
    }
    ++listed;
    if (first_cached && b.children != 0) return "first cached block on the list is not a leaf";
    first_cached = false;
  }
  if (listed != evictable_blocks_) return "eviction list length differs from its count";
  if (queued_free != queued_free_blocks_) return "queued free blocks differ from their count";
  if (order_ == models::EvictionOrder::kRadixLru && queued_free != 0)
    return "queued free block in radix mode";
  if (used_blocks() + queued_free > capacity_) return "queued free blocks exceed free room";
  for (uint32_t s = 0; s < capacity_; ++s) {
    const Block& b = blocks_[s];
    if (b.hash == 0) continue;
    if (index_.Find(b.hash) != s) return "cached block not indexed at its slot";
    if (b.parent != kNone && blocks_[b.parent].pins < b.pins)
      return "block pinned more than its parent";
  }
  return "";
}

}  // namespace kvroute::oracle
