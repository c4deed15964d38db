// The one event queue of a simulation. Events are small values ordered by
// (time, insertion sequence): events at equal times pop in the order they were
// pushed, which makes every run deterministic (DESIGN.md, "Events").
#ifndef KVROUTE_SIM_CORE_EVENT_QUEUE_H_
#define KVROUTE_SIM_CORE_EVENT_QUEUE_H_

#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace kvroute::sim {

enum class EventKind : uint8_t {
  kArrival,          // the next request arrives (closed loop: `target` is its client)
  kEnqueue,          // the request in pool slot `target` reaches its replica's engine
  kIterationDone,    // replica `target` finished its current batch
  kControlTick,      // the policy's periodic control interval elapsed
  kReplicaFailure,   // replica `target` fails (scenario failure schedule)
  kReplicaRecovery,  // replica `target` comes back, cold
  kSignalRefresh,    // the router polls the replicas' load signals
  kMeasureStart,     // the warm-up ends: time-averaged metrics start
  kMeasureEnd,       // arrivals end: time-averaged metrics stop
  kAutoscaleTick,    // deployment `target`'s autoscaler decides
  kScaleStep,        // deployment `target`'s replica schedule changes
  kReplicaReady,     // replica `target`, provisioned by the autoscaler, starts serving
  kKvTransferDone,   // the KV of the request in pool slot `target` reached its decode replica
};

struct Event {
  Time time;
  uint64_t sequence;  // insertion order; breaks ties between equal times
  EventKind kind;
  uint32_t target;  // replica index for replica events, unused otherwise
};

class EventQueue {
 public:
  EventQueue() = default;

  // Returns the event's sequence number, which identifies it when popped.
  // REQUIRES: time >= the time of the last popped event (no scheduling in the past).
  uint64_t Push(Time time, EventKind kind, uint32_t target = 0);

  bool Empty() const { return heap_.empty(); }
  size_t Size() const { return heap_.size(); }

  // REQUIRES: !Empty().
  const Event& Top() const { return heap_.front(); }

  // Removes and returns the earliest event. REQUIRES: !Empty().
  Event Pop();

  // Time of the last popped event; the simulation clock.
  Time Now() const { return now_; }

  void Clear();

 private:
  std::vector<Event> heap_;
  uint64_t next_sequence_ = 0;
  Time now_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_EVENT_QUEUE_H_
