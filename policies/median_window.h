// The median of the last `capacity` samples (Preble's per-GPU TPOT record:
// deque(maxlen=200) seeded with 0.15 s, read through np.median; policies.md
// §5). Preble's router reads every replica's median for each request, so the
// window is also kept sorted (a push moves at most `capacity` samples; no
// selection per read) and the median is worked out once per push, not once
// per read. REQUIRES of every sample: not NaN.
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
    sorted_.reserve(capacity);
    Push(seed);
  }

  void Push(double sample) {
    if (samples_.size() < capacity_) {
      samples_.push_back(sample);
    } else {
      // The oldest sample leaves: one sample equal to it leaves the sorted copy.
      sorted_.erase(std::lower_bound(sorted_.begin(), sorted_.end(), samples_[next_]));
      samples_[next_] = sample;
      next_ = (next_ + 1) % capacity_;
    }
    sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), sample), sample);
    // np.median: the middle sample, or the mean of the two middle ones.
    const size_t mid = sorted_.size() / 2;
    median_ = sorted_.size() % 2 == 1 ? sorted_[mid] : (sorted_[mid] + sorted_[mid - 1]) / 2;
  }

  double Median() const { return median_; }

 private:
  size_t capacity_;
  size_t next_ = 0;              // the oldest sample once full
  std::vector<double> samples_;  // in arrival order, a ring once full
  std::vector<double> sorted_;   // the same samples, ascending
  double median_ = 0;            // of sorted_
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_MEDIAN_WINDOW_H_
