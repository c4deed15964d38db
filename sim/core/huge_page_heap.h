// Transparent huge pages for the heap, where Linux gives them only on request.
//
// Debian and Ubuntu set transparent huge pages to "madvise": a region gets
// 2 MiB pages only if the program asks, and glibc's malloc never asks (unless
// started with GLIBC_TUNABLES=glibc.malloc.hugetlb=1). A point whose requests
// wait by the tens of thousands, each with thousands of block hashes (an
// overloaded 70B flagship point holds ~260 MiB of them), then spends much of
// its time in page faults on 4 KiB pages. docs/PERFORMANCE.md ("Huge pages")
// has the measurements.
//
// Where memory comes from never changes a result: the simulation is the same
// bit for bit with or without huge pages.
#ifndef KVROUTE_SIM_CORE_HUGE_PAGE_HEAP_H_
#define KVROUTE_SIM_CORE_HUGE_PAGE_HEAP_H_

#include <cstddef>

namespace kvroute::sim {

// Makes malloc grow its heap `reserve_bytes` at a time (address space only:
// untouched pages take no memory) and marks the heap for huge pages, so that
// the next `reserve_bytes` of heap memory are faulted in 2 MiB at a time.
// Growth beyond that falls back to ordinary pages. Call once, early in main;
// does nothing, and returns false, off Linux and glibc, when huge pages are
// unavailable or off ("never"), or when the environment variable
// KVROUTE_HUGE_PAGES is "0".
bool BackHeapWithHugePages(std::size_t reserve_bytes);

// Marks a region the program mapped itself (page-aligned) for huge pages if
// BackHeapWithHugePages marked the heap, so that it follows the same choice.
void MarkLikeTheHeap(void* begin, std::size_t bytes);

// The heap's current extent is marked for huge pages (its VmFlags hold "hg"
// in /proc/self/smaps). False where that cannot be read.
bool HeapMarkedForHugePages();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_HUGE_PAGE_HEAP_H_
