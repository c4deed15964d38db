// An open-addressing map from non-zero 64-bit hashes to 32-bit slots, sized once
// and never allocating afterwards. The prefix cache uses it as its block index
// (DESIGN.md, "Performance notes": a lookup must not allocate).
//
// Linear probing with backward-shift deletion: no tombstones, so probe lengths
// stay short however many inserts and erases a long simulation performs.
#ifndef KVROUTE_SIM_CORE_FLAT_HASH_INDEX_H_
#define KVROUTE_SIM_CORE_FLAT_HASH_INDEX_H_

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/core/hashing.h"

namespace kvroute::sim {

class FlatHashIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // Room for `max_entries` entries at a load factor of at most 1/2.
  explicit FlatHashIndex(uint32_t max_entries) {
    uint64_t capacity = 16;
    while (capacity < 2ULL * max_entries) capacity *= 2;
    keys_.assign(capacity, 0);
    values_.assign(capacity, kAbsent);
    mask_ = capacity - 1;
  }

  // REQUIRES: key != 0.
  uint32_t Find(uint64_t key) const {
    for (uint64_t i = Home(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
      if (keys_[i] == 0) return kAbsent;
    }
  }

  // REQUIRES: key != 0, key absent, Size() < max_entries.
  void Insert(uint64_t key, uint32_t value) {
    assert(key != 0 && size_ * 2 < keys_.size());
    uint64_t i = Home(key);
    while (keys_[i] != 0) {
      assert(keys_[i] != key);
      i = (i + 1) & mask_;
    }
    keys_[i] = key;
    values_[i] = value;
    ++size_;
  }

  // Removes `key` if present.
  void Erase(uint64_t key) {
    uint64_t i = Home(key);
    while (keys_[i] != key) {
      if (keys_[i] == 0) return;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull later entries of the probe run into the hole when
    // the hole lies between their home and their current position.
    for (uint64_t j = (i + 1) & mask_; keys_[j] != 0; j = (j + 1) & mask_) {
      uint64_t home = Home(keys_[j]);
      bool hole_on_path = ((j - home) & mask_) >= ((j - i) & mask_);
      if (hole_on_path) {
        keys_[i] = keys_[j];
        values_[i] = values_[j];
        i = j;
      }
    }
    keys_[i] = 0;
    values_[i] = kAbsent;
    --size_;
  }

  uint32_t Size() const { return size_; }

  void Clear() {
    std::fill(keys_.begin(), keys_.end(), 0);
    std::fill(values_.begin(), values_.end(), kAbsent);
    size_ = 0;
  }

 private:
  uint64_t Home(uint64_t key) const { return Mix64(key) & mask_; }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  uint64_t mask_ = 0;
  uint32_t size_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_FLAT_HASH_INDEX_H_
