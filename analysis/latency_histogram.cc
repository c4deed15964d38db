#include "analysis/latency_histogram.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace kvroute::analysis {
namespace {

constexpr int kSubBits = 10;  // 1024 linear buckets per power of two
constexpr uint64_t kSub = uint64_t{1} << kSubBits;
constexpr size_t kBuckets = kSub + (64 - kSubBits) * kSub;

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

size_t LatencyHistogram::BucketOf(sim::Time value) {
  uint64_t v = static_cast<uint64_t>(value);
  if (v < kSub) return v;
  int exponent = std::bit_width(v) - 1;  // >= kSubBits
  uint64_t sub = (v >> (exponent - kSubBits)) & (kSub - 1);
  return kSub + static_cast<size_t>(exponent - kSubBits) * kSub + sub;
}

double LatencyHistogram::BucketMidpoint(size_t bucket) {
  if (bucket < kSub) return static_cast<double>(bucket);
  size_t exponent = (bucket - kSub) / kSub + kSubBits;
  uint64_t sub = (bucket - kSub) % kSub;
  double width = std::ldexp(1.0, static_cast<int>(exponent) - kSubBits);
  double low = std::ldexp(1.0, static_cast<int>(exponent)) + static_cast<double>(sub) * width;
  return low + width / 2;
}

void LatencyHistogram::Record(sim::Time value) {
  assert(value >= 0);
  ++counts_[BucketOf(value)];
  ++count_;
  if (value > max_) max_ = value;
  sum_seconds_ += sim::ToSeconds(value);
}

double LatencyHistogram::PercentileSeconds(double p) const {
  uint64_t total = count();
  if (total == 0) return std::numeric_limits<double>::quiet_NaN();
  // p·n/100 in floating point can land a hair above an integer (99.9 × 200000
  // / 100 = 199800.00000000003); the tolerance keeps the nearest rank exact.
  uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(total) / 100.0 - 1e-9));
  rank = std::max<uint64_t>(1, std::min(rank, total));
  if (rank > count_) return std::numeric_limits<double>::infinity();
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      // The top bucket holds the maximum, which is known exactly.
      if (b == BucketOf(max_)) return sim::ToSeconds(max_);
      return BucketMidpoint(b) * 1e-9;
    }
  }
  return sim::ToSeconds(max_);
}

double LatencyHistogram::MaxSeconds() const {
  if (count() == 0) return std::numeric_limits<double>::quiet_NaN();
  if (censored_ > 0) return std::numeric_limits<double>::infinity();
  return sim::ToSeconds(max_);
}

double LatencyHistogram::MeanSeconds() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                     : sum_seconds_ / static_cast<double>(count_);
}

}  // namespace kvroute::analysis
