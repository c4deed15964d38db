// The median of the last `capacity` samples (Preble's per-GPU TPOT record:
// deque(maxlen=200) seeded with 0.15 s, read through np.median; policies.md
// §5). The median is recomputed only after a push, at the first read.
#ifndef KVROUTE_POLICIES_MEDIAN_WINDOW_H_
#define KVROUTE_POLICIES_MEDIAN_WINDOW_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kvroute::policies {

class MedianWindow {
 public:
  // REQUIRES: capacity >= 1.
  MedianWindow(size_t capacity, double seed) : capacity_(capacity) {
    samples_.reserve(capacity);
    Push(seed);
  }

  void Push(double sample) {
    if (samples_.size() < capacity_) {
      samples_.push_back(sample);
    } else {
      samples_[next_] = sample;
      next_ = (next_ + 1) % capacity_;
    }
    stale_ = true;
  }

  // np.median: the middle sample, or the mean of the two middle ones.
  double Median() const {
    if (!stale_) return median_;
    scratch_.assign(samples_.begin(), samples_.end());
    const size_t mid = scratch_.size() / 2;
    std::nth_element(scratch_.begin(), scratch_.begin() + mid, scratch_.end());
    median_ = scratch_[mid];
    if (scratch_.size() % 2 == 0) {
      median_ = (median_ + *std::max_element(scratch_.begin(), scratch_.begin() + mid)) / 2;
    }
    stale_ = false;
    return median_;
  }

 private:
  size_t capacity_;
  size_t next_ = 0;  // the oldest sample once full
  std::vector<double> samples_;
  mutable std::vector<double> scratch_;
  mutable double median_ = 0;
  mutable bool stale_ = true;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_MEDIAN_WINDOW_H_
