#include "sim/core/event_queue.h"

#include <algorithm>
#include <cassert>

namespace kvroute::sim {
namespace {

// std::*_heap keep the largest element first; "later" is larger, so the front
// is the earliest (time, sequence). A function object rather than a function
// pointer, so that the heap operations inline it: they run twice per event.
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time > b.time || (a.time == b.time && a.sequence > b.sequence);
  }
};

}  // namespace

uint64_t EventQueue::Push(Time time, EventKind kind, uint32_t target) {
  assert(time >= now_ && "event scheduled in the past");
  uint64_t sequence = next_sequence_++;
  heap_.push_back(Event{time, sequence, kind, target});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return sequence;
}

Event EventQueue::Pop() {
  assert(!heap_.empty());
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  Event event = heap_.back();
  heap_.pop_back();
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
