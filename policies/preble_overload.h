// Preble's TTFT overload detector (WukLab/preble preble/ttft_overload_detector.py,
// TTFTWindowedOverloadedDetector; policies.md §5): per (important node, GPU)
// the TTFTs of completed requests over a window; the pair is overloaded when
// the mean TTFT of the window's second half is at least `factor` times the
// mean of its first half, both halves non-empty. Rebalancing replicates a hot
// node only when its GPU is overloaded this way (prefix autoscaling).
#ifndef KVROUTE_POLICIES_PREBLE_OVERLOAD_H_
#define KVROUTE_POLICIES_PREBLE_OVERLOAD_H_

#include <cstdint>
#include <unordered_map>

#include "sim/core/ring_deque.h"
#include "sim/core/time.h"

namespace kvroute::policies {

class TtftOverloadDetector {
 public:
  TtftOverloadDetector(sim::Time window, double factor) : window_(window), factor_(factor) {}

  // add_data_point: drops the pair's points older than the window.
  void Add(sim::Time now, uint32_t node, uint32_t gpu, double ttft_s);
  // is_node_overloaded, with the halves split at now − window/2. Points older
  // than the window are not counted (Preble drops them only on the next add).
  bool Overloaded(uint32_t node, uint32_t gpu, sim::Time now) const;
  // rename_node after a split passed the node's window entry to its parent.
  void Rename(uint32_t from, uint32_t to, uint32_t gpu);
  // delete_after_allocation.
  void Erase(uint32_t node, uint32_t gpu) { series_.erase(Key(node, gpu)); }

 private:
  struct Point {
    sim::Time time;
    double ttft_s;
  };
  static uint64_t Key(uint32_t node, uint32_t gpu) { return (uint64_t{node} << 32) | gpu; }

  sim::Time window_;
  double factor_;
  std::unordered_map<uint64_t, sim::RingDeque<Point>> series_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PREBLE_OVERLOAD_H_
