// Slots recycled in place: items live in a vector and are addressed by index;
// a finished item's index goes on a free list and the next new item takes it,
// so a steady state allocates nothing.
#ifndef KVROUTE_SIM_CORE_SLOT_POOL_H_
#define KVROUTE_SIM_CORE_SLOT_POOL_H_

#include <cstdint>
#include <vector>

namespace kvroute::sim {

// The slot for a new item: the most recently freed index, or a new
// default-constructed item appended to `items`. A reused slot keeps its old
// contents (and their storage) for the caller to overwrite.
template <typename T>
uint32_t TakeSlot(std::vector<T>& items, std::vector<uint32_t>& free) {
  if (free.empty()) {
    items.emplace_back();
    return static_cast<uint32_t>(items.size() - 1);
  }
  const uint32_t slot = free.back();
  free.pop_back();
  return slot;
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_SLOT_POOL_H_
