#include "sim/core/huge_page_heap.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#define KVROUTE_HUGE_PAGE_HEAP 1
#endif

namespace kvroute::sim {
namespace {

// The [heap] mapping's bounds from /proc/self/maps.
bool HeapBounds(uintptr_t* begin, uintptr_t* end) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("[heap]") == std::string::npos) continue;
    char* rest = nullptr;
    *begin = std::strtoull(line.c_str(), &rest, 16);
    if (rest == nullptr || *rest != '-') return false;
    *end = std::strtoull(rest + 1, nullptr, 16);
    return *end > *begin;
  }
  return false;
}

bool HugePagesOnRequest() {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(setting, modes);
  // "always [madvise] never": the bracketed mode is the active one. With
  // "always" the heap has them already; with "never" nothing gives them.
  return modes.find("[madvise]") != std::string::npos;
}

#ifdef KVROUTE_HUGE_PAGE_HEAP
// Set once, by BackHeapWithHugePages, before any other thread runs.
bool heap_marked = false;
#endif

}  // namespace

bool BackHeapWithHugePages(std::size_t reserve_bytes) {
#ifdef KVROUTE_HUGE_PAGE_HEAP
  const char* wanted = std::getenv("KVROUTE_HUGE_PAGES");
  if (wanted != nullptr && std::strcmp(wanted, "0") == 0) return false;
  if (!HugePagesOnRequest()) return false;
  if (reserve_bytes > (std::size_t{1} << 30)) reserve_bytes = std::size_t{1} << 30;  // int
  if (mallopt(M_TOP_PAD, static_cast<int>(reserve_bytes)) != 1) return false;
  // Setting the pad freezes malloc's threshold for mapping a block on its own
  // at 128 KiB; raised to the most it would adapt to (32 MiB), the caches'
  // and indexes' large arrays come from the marked heap too.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // One allocation larger than what is left at the heap's top (below the
  // size that malloc would map on its own) makes it grow by the pad now.
  // volatile: the allocation must not be optimised away.
  void* volatile probe = std::malloc(120 * 1024);
  std::free(probe);
  uintptr_t begin = 0, end = 0;
  if (!HeapBounds(&begin, &end)) return false;
  const uintptr_t page = 4096;
  begin = (begin + page - 1) & ~(page - 1);
  heap_marked = madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
  return heap_marked;
#else
  (void)reserve_bytes;
  return false;
#endif
}

void MarkLikeTheHeap(void* begin, std::size_t bytes) {
#ifdef KVROUTE_HUGE_PAGE_HEAP
  if (heap_marked) madvise(begin, bytes, MADV_HUGEPAGE);  // a hint: failing is harmless
#else
  (void)begin;
  (void)bytes;
#endif
}

bool HeapMarkedForHugePages() {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_heap = false;
  while (std::getline(smaps, line)) {
    if (line.find("[heap]") != std::string::npos) {
      in_heap = true;
    } else if (in_heap && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return false;
}

}  // namespace kvroute::sim
