#include "sim/runner/believed_caches.h"

#include <algorithm>
#include <cassert>

// Invariants: an entry is in index_ iff its hash_ is non-zero, and then at
// least one of its holder bits is set; a free entry has no bit set and is on
// free_.

namespace kvroute::sim {

BelievedCaches::BelievedCaches(uint32_t replicas)
    : replicas_(replicas), words_(std::max<uint32_t>(1, (replicas + 63) / 64)) {}

bool BelievedCaches::Holds(uint32_t replica, uint64_t block) const {
  const uint32_t entry = index_.Find(block);
  return entry != models::BlockHashIndex::kAbsent &&
         ((Bits(entry)[replica / 64] >> (replica % 64)) & 1);
}

void BelievedCaches::Add(uint32_t replica, uint64_t block) {
  assert(block != 0 && replica < replicas_);
  uint32_t entry = index_.Find(block);
  if (entry == models::BlockHashIndex::kAbsent) {
    if (free_.empty()) {
      entry = static_cast<uint32_t>(hash_.size());
      hash_.push_back(0);
      bits_.resize(bits_.size() + words_, 0);
    } else {
      entry = free_.back();
      free_.pop_back();
    }
    hash_[entry] = block;
    index_.Insert(block, entry);
  }
  Bits(entry)[replica / 64] |= uint64_t{1} << (replica % 64);
}

void BelievedCaches::Drop(uint32_t replica, uint64_t block) {
  const uint32_t entry = index_.Find(block);
  if (entry == models::BlockHashIndex::kAbsent) return;
  uint64_t* bits = Bits(entry);
  bits[replica / 64] &= ~(uint64_t{1} << (replica % 64));
  if (std::all_of(bits, bits + words_, [](uint64_t w) { return w == 0; })) Free(entry);
}

void BelievedCaches::DropAll(uint32_t replica) {
  for (uint32_t entry = 0; entry < hash_.size(); ++entry) {
    if (hash_[entry] != 0) Drop(replica, hash_[entry]);
  }
}

void BelievedCaches::Free(uint32_t entry) {
  index_.Erase(hash_[entry]);
  hash_[entry] = 0;
  free_.push_back(entry);
}

void BelievedCaches::Depths(uint32_t first, std::span<const uint64_t> chain,
                            std::span<uint32_t> out) const {
  assert(first + out.size() <= replicas_);
  std::fill(out.begin(), out.end(), 0);
  for (uint32_t j = 0; j < chain.size(); ++j) {
    const uint32_t entry = index_.Find(chain[j]);
    if (entry == models::BlockHashIndex::kAbsent) return;
    const uint64_t* bits = Bits(entry);
    bool extended = false;
    for (uint32_t i = 0; i < out.size(); ++i) {
      const uint32_t r = first + i;
      if (out[i] == j && ((bits[r / 64] >> (r % 64)) & 1)) {
        out[i] = j + 1;
        extended = true;
      }
    }
    if (!extended) return;
  }
}

}  // namespace kvroute::sim
