#include "sim/core/event_queue.h"

#include <algorithm>
#include <cassert>

namespace kvroute::sim {
namespace {

// The queue is a 4-ary min-heap: half as deep as a binary one, with a node's
// four children side by side, so a pop moves an event half as many times as
// std::pop_heap does (1-2% of a whole run, PERFORMANCE.md). Keys
// (time, sequence) are unique, so any correct heap pops the same order.
constexpr size_t kArity = 4;

// (time, sequence) as one unsigned 128-bit number, ordered as the pair: a
// comparison is a subtract with borrow rather than two branches. (GCC and
// Clang both have the type; __extension__ says it is meant.)
__extension__ typedef unsigned __int128 OrderKey;
OrderKey Key(const Event& e) {
  const uint64_t time = static_cast<uint64_t>(e.time) ^ (uint64_t{1} << 63);  // signed order
  return (static_cast<OrderKey>(time) << 64) | e.sequence;
}

}  // namespace

uint64_t EventQueue::Push(Time time, EventKind kind, uint32_t target) {
  assert(time >= now_ && "event scheduled in the past");
  uint64_t sequence = next_sequence_++;
  const Event event{time, sequence, kind, target};
  const OrderKey key = Key(event);
  // Sift up: parents later than the new event move down into the hole.
  size_t hole = heap_.size();
  heap_.emplace_back();
  while (hole > 0) {
    const size_t parent = (hole - 1) / kArity;
    if (Key(heap_[parent]) < key) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = event;
  return sequence;
}

Event EventQueue::Pop() {
  assert(!heap_.empty());
  const Event event = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const size_t size = heap_.size();
  if (size > 0) {
    // Sift down: the earliest child moves up into the hole until `last`
    // is no later than it.
    const OrderKey key = Key(last);
    size_t hole = 0;
    for (;;) {
      const size_t first = kArity * hole + 1;
      if (first >= size) break;
      size_t earliest = first;
      OrderKey earliest_key = Key(heap_[first]);
      const size_t end = std::min(first + kArity, size);
      for (size_t c = first + 1; c < end; ++c) {
        const OrderKey k = Key(heap_[c]);
        if (k < earliest_key) {
          earliest = c;
          earliest_key = k;
        }
      }
      if (key < earliest_key) break;
      heap_[hole] = heap_[earliest];
      hole = earliest;
    }
    heap_[hole] = last;
  }
  assert(event.time >= now_ && "time went backwards");
  now_ = event.time;
  return event;
}

void EventQueue::Clear() {
  heap_.clear();
  next_sequence_ = 0;
  now_ = 0;
}

}  // namespace kvroute::sim
