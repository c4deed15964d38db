#include "models/kv_tier.h"

#include <cassert>
#include <cmath>

namespace kvroute::models {

sim::Time KvTierConfig::LoadTime(uint32_t blocks) const {
  if (blocks == 0) return 0;
  const double bytes = static_cast<double>(blocks) * bytes_per_block;
  return latency + sim::FromSeconds(bytes / bandwidth_bytes_per_s);
}

HostKvTier::HostKvTier(const KvTierConfig& config)
    : config_(config), index_(config.capacity_blocks), entries_(config.capacity_blocks) {
  assert(config.enabled());
  spare_.reserve(config.capacity_blocks);
  for (uint32_t e = config.capacity_blocks; e > 0; --e) spare_.push_back(e - 1);
}

uint32_t HostKvTier::Match(BlockChain chain, uint32_t from, uint32_t limit) const {
  uint32_t j = from;
  while (j < limit && index_.Find(Key(chain[j])) != sim::FlatHashIndex::kAbsent) ++j;
  return j - from;
}

void HostKvTier::BeginLoad(BlockChain chain, uint32_t from, uint32_t blocks) {
  for (uint32_t j = from; j < from + blocks; ++j) {
    const uint32_t e = index_.Find(Key(chain[j]));
    assert(e != sim::FlatHashIndex::kAbsent);
    entries_[e].load_epoch = epoch_;
  }
}

sim::Time HostKvTier::EndLoad(BlockChain chain, uint32_t from, uint32_t blocks, bool done,
                              uint32_t through) {
  ++epoch_;
  if (!done || blocks + through == 0) return 0;
  // Deepest first, so the chain's first block ends most recently used.
  for (uint32_t j = from + blocks; j > from; --j) {
    const uint32_t e = index_.Find(Key(chain[j - 1]));
    assert(e != sim::FlatHashIndex::kAbsent);
    Unlink(e);
    PushMru(e);
  }
  const sim::Time t = config_.LoadTime(blocks + through);
  counters_.loaded_blocks += blocks + through;
  ++counters_.loads;
  counters_.load_time += t;
  return t;
}

void HostKvTier::Store(uint64_t hash) {
  const bool copied = Insert(hash);
  if (copied && below_ != nullptr && config_.offload == OffloadRule::kWriteThrough) {
    below_->Store(hash);
  }
}

void HostKvTier::Promote(BlockChain chain, uint32_t from, uint32_t blocks) {
  for (uint32_t j = from + blocks; j > from; --j) {
    if (Insert(chain[j - 1])) ++counters_.promoted_blocks;
  }
}

bool HostKvTier::Insert(uint64_t hash) {
  const uint64_t key = Key(hash);
  if (const uint32_t e = index_.Find(key); e != sim::FlatHashIndex::kAbsent) {
    Unlink(e);
    PushMru(e);
    return false;
  }
  if (spare_.empty()) {
    uint32_t victim = lru_;
    while (victim != kNone && entries_[victim].load_epoch == epoch_) victim = entries_[victim].next;
    if (victim == kNone) {
      ++counters_.skipped_stores;
      return false;
    }
    Unlink(victim);
    index_.Erase(Key(entries_[victim].hash));
    spare_.push_back(victim);
    --held_;
    ++counters_.dropped_blocks;
    if (below_ != nullptr && config_.offload == OffloadRule::kOnEvict) {
      below_->Store(entries_[victim].hash);
    }
  }
  const uint32_t e = spare_.back();
  spare_.pop_back();
  entries_[e] = Entry{.hash = hash, .load_epoch = 0, .prev = kNone, .next = kNone};
  index_.Insert(key, e);
  PushMru(e);
  ++held_;
  ++counters_.stored_blocks;
  return true;
}

void HostKvTier::Clear() {
  counters_.dropped_blocks += held_;
  index_.Clear();
  spare_.clear();
  for (uint32_t e = config_.capacity_blocks; e > 0; --e) spare_.push_back(e - 1);
  lru_ = mru_ = kNone;
  held_ = 0;
}

void HostKvTier::Unlink(uint32_t e) {
  Entry& entry = entries_[e];
  (entry.prev == kNone ? lru_ : entries_[entry.prev].next) = entry.next;
  (entry.next == kNone ? mru_ : entries_[entry.next].prev) = entry.prev;
  entry.prev = entry.next = kNone;
}

void HostKvTier::PushMru(uint32_t e) {
  entries_[e].prev = mru_;
  entries_[e].next = kNone;
  (mru_ == kNone ? lru_ : entries_[mru_].next) = e;
  mru_ = e;
}

std::vector<uint64_t> HostKvTier::LruOrder() const {
  std::vector<uint64_t> order;
  for (uint32_t e = lru_; e != kNone; e = entries_[e].next) order.push_back(entries_[e].hash);
  return order;
}

std::string HostKvTier::CheckInvariants() const {
  if (held_ > config_.capacity_blocks) return "more blocks held than the capacity";
  if (held_ + spare_.size() != config_.capacity_blocks) return "held + spare slots != capacity";
  if (index_.Size() != held_) return "index size differs from the held count";
  uint32_t listed = 0;
  uint32_t prev = kNone;
  for (uint32_t e = lru_; e != kNone; e = entries_[e].next) {
    if (entries_[e].prev != prev) return "broken LRU links";
    if (index_.Find(Key(entries_[e].hash)) != e) return "listed block missing from the index";
    if (++listed > held_) return "LRU list longer than the held count";
    prev = e;
  }
  if (prev != mru_) return "LRU list does not end at its most recent block";
  if (listed != held_) return "LRU list shorter than the held count";
  if (counters_.stored_blocks != held_ + counters_.dropped_blocks)
    return "stored blocks != held + dropped";
  return "";
}

}  // namespace kvroute::models
