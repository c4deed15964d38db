#include "tests/oracle/block_lru.h"

#include <cassert>

namespace kvroute::oracle {

BlockLru::BlockLru(uint32_t capacity, sim::Time ttl)
    : ttl_(ttl), nodes_(capacity), index_(capacity) {
  assert(capacity > 0);
  free_.reserve(capacity);
  for (uint32_t s = capacity; s > 0; --s) free_.push_back(s - 1);
}

bool BlockLru::Contains(uint64_t hash, sim::Time now) const {
  uint32_t slot = index_.Find(Key(hash));
  if (slot == sim::FlatHashIndex::kAbsent) return false;
  return ttl_ == 0 || now - nodes_[slot].touched < ttl_;
}

void BlockLru::Touch(uint64_t hash, sim::Time now) {
  while (ttl_ > 0 && tail_ != kNone && now - nodes_[tail_].touched >= ttl_) EvictTail();
  uint64_t key = Key(hash);
  uint32_t slot = index_.Find(key);
  if (slot != sim::FlatHashIndex::kAbsent) {
    Unlink(slot);
  } else {
    if (free_.empty()) EvictTail();
    slot = free_.back();
    free_.pop_back();
    nodes_[slot].key = key;
    index_.Insert(key, slot);
  }
  nodes_[slot].touched = now;
  PushFront(slot);
}

void BlockLru::Clear() {
  while (tail_ != kNone) EvictTail();
}

void BlockLru::Unlink(uint32_t slot) {
  Node& n = nodes_[slot];
  (n.prev == kNone ? head_ : nodes_[n.prev].next) = n.next;
  (n.next == kNone ? tail_ : nodes_[n.next].prev) = n.prev;
  n.prev = n.next = kNone;
}

void BlockLru::PushFront(uint32_t slot) {
  nodes_[slot].next = head_;
  if (head_ != kNone) nodes_[head_].prev = slot;
  head_ = slot;
  if (tail_ == kNone) tail_ = slot;
}

void BlockLru::EvictTail() {
  uint32_t slot = tail_;
  Unlink(slot);
  index_.Erase(nodes_[slot].key);
  free_.push_back(slot);
}

}  // namespace kvroute::oracle
