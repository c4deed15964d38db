#include "sim/core/growable_words.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "sim/core/huge_page_heap.h"

#if defined(__linux__)
#include <sys/mman.h>
#define KVROUTE_REMAP_WORDS 1
#endif

namespace kvroute::sim {
namespace {

#ifdef KVROUTE_REMAP_WORDS
constexpr size_t kHugePage = size_t{2} << 20;

// Mapped lengths are whole huge pages, so that a marked mapping is backed by
// them throughout.
size_t MappedLength(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
#endif

}  // namespace

GrowableWords& GrowableWords::operator=(const GrowableWords& other) {
  if (this == &other) return *this;
  Free();
  Grow(other.size_);
  if (size_ > 0) std::memcpy(words_, other.words_, size_ * sizeof(uint64_t));
  return *this;
}

void GrowableWords::Grow(size_t size) {
  if (size <= size_) return;
  if (size > SIZE_MAX / sizeof(uint64_t)) throw std::bad_alloc();
  const size_t bytes = size * sizeof(uint64_t);
#ifdef KVROUTE_REMAP_WORDS
  if (bytes >= kMappedBytes) {
    const size_t length = MappedLength(bytes);
    void* grown;
    if (length <= mapped_bytes_) {  // within the mapping's last huge page
      grown = words_;
    } else if (mapped_bytes_ > 0) {
      grown = mremap(words_, mapped_bytes_, length, MREMAP_MAYMOVE);
    } else {
      grown = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (grown != MAP_FAILED) {
        MarkLikeTheHeap(grown, length);
        if (size_ > 0) std::memcpy(grown, words_, size_ * sizeof(uint64_t));
        std::free(words_);
      }
    }
    if (grown == MAP_FAILED) throw std::bad_alloc();
    words_ = static_cast<uint64_t*>(grown);
    size_ = size;
    mapped_bytes_ = std::max(mapped_bytes_, length);
    return;
  }
#endif
  void* grown = std::realloc(words_, bytes);
  if (grown == nullptr) throw std::bad_alloc();
  words_ = static_cast<uint64_t*>(grown);
  size_ = size;
}

void GrowableWords::Free() {
#ifdef KVROUTE_REMAP_WORDS
  if (mapped_bytes_ > 0) {
    munmap(words_, mapped_bytes_);
  } else {
    std::free(words_);
  }
#else
  std::free(words_);
#endif
  words_ = nullptr;
  size_ = 0;
  mapped_bytes_ = 0;
}

}  // namespace kvroute::sim
