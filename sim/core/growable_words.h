// An array of 64-bit words that grows without touching the words it adds.
//
// std::vector<uint64_t>::resize zeroes every new word and copies the old ones
// into a fresh allocation; for an arena that doubles as it fills (the prefix
// trees' runs, models/block_run_tree.h) each growth then faults in and writes
// twice the memory the arena will ever hold. On Preble's global tree over the
// Mooncake-length flagship that was ~40% of a run's time, in the kernel
// clearing pages (docs/PERFORMANCE.md, "Arenas grown in place"). Here growth
// is realloc: the C library extends the block in place where it can (the top
// of the heap) or moves the pages of a block it mapped on its own (Linux's
// mremap), and new words are left as they are, to be written before they
// are read.
#ifndef KVROUTE_SIM_CORE_GROWABLE_WORDS_H_
#define KVROUTE_SIM_CORE_GROWABLE_WORDS_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace kvroute::sim {

class GrowableWords {
 public:
  GrowableWords() = default;
  explicit GrowableWords(size_t size) { Grow(size); }
  GrowableWords(const GrowableWords& other) : GrowableWords() { *this = other; }
  GrowableWords(GrowableWords&& other) noexcept
      : words_(std::exchange(other.words_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  GrowableWords& operator=(const GrowableWords& other) {
    if (this == &other) return *this;
    Free();
    Grow(other.size_);
    if (size_ > 0) std::memcpy(words_, other.words_, size_ * sizeof(uint64_t));
    return *this;
  }
  GrowableWords& operator=(GrowableWords&& other) noexcept {
    if (this != &other) {
      Free();
      words_ = std::exchange(other.words_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~GrowableWords() { Free(); }

  // Makes the array at least `size` words long (it never shrinks), keeping
  // its words; words beyond the old size are unspecified until written.
  void Grow(size_t size) {
    if (size <= size_) return;
    void* grown = std::realloc(words_, size * sizeof(uint64_t));
    if (grown == nullptr) throw std::bad_alloc();
    words_ = static_cast<uint64_t*>(grown);
    size_ = size;
  }

  size_t size() const { return size_; }
  uint64_t* data() { return words_; }
  const uint64_t* data() const { return words_; }
  uint64_t& operator[](size_t i) { return words_[i]; }
  const uint64_t& operator[](size_t i) const { return words_[i]; }

 private:
  void Free() {
    std::free(words_);
    words_ = nullptr;
    size_ = 0;
  }

  uint64_t* words_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_GROWABLE_WORDS_H_
