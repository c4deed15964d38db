// An open-addressing map from non-zero 64-bit keys to 32-bit values that grows
// (doubling when half full) instead of being sized once like
// sim/core/flat_hash_index.h: for indexes whose size is known only as they
// fill (block_run_tree.h and the routers' per-replica entries). Linear probing
// with backward-shift deletion, keys and values side by side so a probe reads
// one cache line. Allocates only when it grows.
//
// A key's home slot is its low bits after a mixing step, so that structured
// keys (a node and a replica packed together) spread. Keys that are already
// uniform, as chained block hashes are (the SplitMix64 finalizer's output,
// sim/core/hashing.h), skip the mixing: BlockHashIndex, the prefix trees'
// first-block index, probed several times per request and replica.
#ifndef KVROUTE_MODELS_HASH_INDEX_H_
#define KVROUTE_MODELS_HASH_INDEX_H_

#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/core/hashing.h"

namespace kvroute::models {

template <bool kMixKeys>
class BasicHashIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  BasicHashIndex() : slots_(16) {}

  uint32_t Find(uint64_t key) const {
    for (uint64_t i = Home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == 0) return kAbsent;
    }
  }

  // Starts loading the slot where a probe for `key` begins.
  void Prefetch(uint64_t key) const { __builtin_prefetch(&slots_[Home(key)]); }

  // REQUIRES: key != 0 and absent.
  void Insert(uint64_t key, uint32_t value) {
    assert(key != 0);
    if (2 * (size_ + 1) > slots_.size()) Grow();
    uint64_t i = Home(key);
    while (slots_[i].key != 0) {
      assert(slots_[i].key != key);
      i = (i + 1) & mask();
    }
    slots_[i] = {key, value};
    ++size_;
  }

  // REQUIRES: key present.
  void Set(uint64_t key, uint32_t value) {
    uint64_t i = Home(key);
    while (slots_[i].key != key) i = (i + 1) & mask();
    slots_[i].value = value;
  }

  // REQUIRES: key present.
  void Erase(uint64_t key) {
    uint64_t i = Home(key);
    while (slots_[i].key != key) {
      assert(slots_[i].key != 0);
      i = (i + 1) & mask();
    }
    // Backward shift: pull later entries of the probe run into the hole when
    // the hole lies between their home and their position.
    for (uint64_t j = (i + 1) & mask(); slots_[j].key != 0; j = (j + 1) & mask()) {
      if (((j - Home(slots_[j].key)) & mask()) >= ((j - i) & mask())) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --size_;
  }

  void Clear() {
    for (Slot& s : slots_) s = Slot{};
    size_ = 0;
  }

  uint32_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = 0;  // 0: empty
    uint32_t value = kAbsent;
  };

  uint64_t mask() const { return slots_.size() - 1; }
  uint64_t Home(uint64_t key) const {
    if constexpr (kMixKeys) key = sim::Mix64(key);
    return key & mask();
  }
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old) {
      if (s.key != 0) Insert(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  uint32_t size_ = 0;
};

using HashIndex = BasicHashIndex<true>;
// REQUIRES of its keys: uniformly distributed bits (chained block hashes).
using BlockHashIndex = BasicHashIndex<false>;

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_HASH_INDEX_H_
