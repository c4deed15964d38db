// Preble's TTFT overload detector (WukLab/preble preble/ttft_overload_detector.py,
// TTFTWindowedOverloadedDetector; policies.md §5): per (important node, GPU)
// the TTFTs of completed requests over a window; the pair is overloaded when
// the mean TTFT of the window's second half is at least `factor` times the
// mean of its first half, both halves non-empty. Rebalancing replicates a hot
// node only when its GPU is overloaded this way (prefix autoscaling).
//
// Rebalancing asks after almost every routed request, and a hot pair's window
// holds thousands of points. Each point keeps the running sum of the pair's
// TTFTs before it, in long double, so the halves' means are known at once to
// within a bound on that sum's rounding; when the answer is clear of the
// bound plus the rounding of the full scan, that is the answer. Otherwise
// the halves are summed left to right as the full scan does, the sums kept
// between questions and only extended while their ends move forward (the
// same additions in the same order), so the answers are bit for bit those of
// the full scan.
#ifndef KVROUTE_POLICIES_PREBLE_OVERLOAD_H_
#define KVROUTE_POLICIES_PREBLE_OVERLOAD_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "models/hash_index.h"
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
  void Erase(uint32_t node, uint32_t gpu);

 private:
  struct Point {
    sim::Time time;
    double ttft_s;
    long double before;  // the pair's TTFTs added before this point, summed
  };
  // One pair's points, oldest first, and the two halves' sums as last
  // asked, over points [first_begin, second_begin) and [second_begin,
  // second_end) counted from the first point ever added.
  struct Series {
    sim::RingDeque<Point> points;
    uint64_t dropped = 0;  // points popped from the front
    uint64_t first_begin = 0, second_begin = 0, second_end = 0;
    double first = 0, second = 0;
    long double total = 0;  // every TTFT ever added, summed in order
    uint64_t added = 0;
    // Where the window's start and middle were last found: questions come
    // at times that never go back, so the next search walks on from there.
    uint64_t begin_hint = 0, middle_hint = 0;
    // The last answer and the points it was about: a question about the
    // same points has the same answer (rebalancing asks after almost every
    // request; points arrive only with completions). The window's halves
    // keep their points from `answered_at` to `answered_until` unless a
    // point is added.
    uint64_t answered_begin = UINT64_MAX, answered_middle = 0, answered_end = 0;
    sim::Time answered_at = 0, answered_until = std::numeric_limits<sim::Time>::min();
    bool answer = false;
  };
  bool Answer(Series& s, uint64_t begin, uint64_t middle, uint64_t end) const;
  // The answer from the running sums, or -1 when they cannot tell.
  int Estimate(const Series& s, uint64_t begin, uint64_t middle, uint64_t end) const;
  // Index, counted from the first point ever added, of the first point at
  // or after `t`; `hint` is where the last search for an earlier time ended.
  static uint64_t FirstAtOrAfter(const Series& s, sim::Time t, uint64_t* hint);
  // Non-zero, as the index wants.
  static uint64_t Key(uint32_t node, uint32_t gpu) { return ((uint64_t{node} << 32) | gpu) + 1; }
  static constexpr uint32_t kNone = UINT32_MAX;
  // The pair's series, or nullptr.
  Series* Find(uint32_t node, uint32_t gpu) const;
  // Find through asked_.
  Series* FindAsked(uint32_t node, uint32_t gpu) const;
  // Keeps asked_[gpu] true when the pair's series becomes `index` (kNone: none).
  void Tell(uint32_t node, uint32_t gpu, uint32_t index);

  sim::Time window_;
  double factor_;
  models::HashIndex index_;             // Key(node, gpu) -> index in series_
  mutable std::vector<Series> series_;  // a freed one keeps its storage for reuse
  std::vector<uint32_t> free_;          // indexes of freed series
  // Per replica, the node last asked about there and the index of the pair's
  // series (kNone: none): rebalancing asks about the same pair of each
  // replica after almost every request, and this spares the index.
  struct Asked {
    uint32_t node = kNone;
    uint32_t series = kNone;
  };
  mutable std::vector<Asked> asked_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PREBLE_OVERLOAD_H_
