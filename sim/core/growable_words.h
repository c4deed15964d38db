// An array of 64-bit words that grows without touching the words it adds.
//
// std::vector<uint64_t>::resize zeroes every new word and copies the old ones
// into a fresh allocation; for an arena that doubles as it fills (the prefix
// trees' runs, models/block_run_tree.h) each growth then faults in and writes
// several times the memory the arena will ever use. On Preble's global tree
// over the Mooncake-length flagship that was ~40% of a run's time, in the
// kernel clearing pages (docs/performance/EARLIER_PASSES.md, "Arenas that
// grow in place").
// Here a small array is grown with realloc, and one past kMappedBytes is a
// mapping of its own grown with Linux's mremap, which moves the pages rather
// than their contents. Either way new words are left as they are, to be
// written before they are read, and a mapping's pages are faulted in only
// when first written.
#ifndef KVROUTE_SIM_CORE_GROWABLE_WORDS_H_
#define KVROUTE_SIM_CORE_GROWABLE_WORDS_H_

#include <cstddef>
#include <cstdint>
#include <utility>

namespace kvroute::sim {

class GrowableWords {
 public:
  // Arrays at least this large are mapped on their own (where the platform
  // can remap); smaller ones live in the C library's heap.
  static constexpr size_t kMappedBytes = size_t{2} << 20;

  GrowableWords() = default;
  explicit GrowableWords(size_t size) { Grow(size); }
  GrowableWords(const GrowableWords& other) : GrowableWords() { *this = other; }
  GrowableWords(GrowableWords&& other) noexcept { Swap(other); }
  GrowableWords& operator=(const GrowableWords& other);
  GrowableWords& operator=(GrowableWords&& other) noexcept {
    GrowableWords gone(std::move(*this));  // an empty default, then the swap
    Swap(other);
    return *this;
  }
  ~GrowableWords() { Free(); }

  // Makes the array at least `size` words long (it never shrinks), keeping
  // its words; words beyond the old size are unspecified until written.
  // Throws std::bad_alloc when memory cannot be had.
  void Grow(size_t size);

  size_t size() const { return size_; }
  uint64_t* data() { return words_; }
  const uint64_t* data() const { return words_; }
  uint64_t& operator[](size_t i) { return words_[i]; }
  const uint64_t& operator[](size_t i) const { return words_[i]; }

 private:
  void Swap(GrowableWords& other) noexcept {
    std::swap(words_, other.words_);
    std::swap(size_, other.size_);
    std::swap(mapped_bytes_, other.mapped_bytes_);
  }
  void Free();

  uint64_t* words_ = nullptr;
  size_t size_ = 0;
  size_t mapped_bytes_ = 0;  // the mapping's length; 0 while in the heap
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_GROWABLE_WORDS_H_
