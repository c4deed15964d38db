// A streaming histogram of durations with 0.1% relative precision, so a point's
// memory does not grow with the number of requests (DESIGN.md, "Performance
// notes"). Log-linear buckets: 1024 per power of two. Values that never came
// (a request still waiting when the run ends) are counted as censored: larger
// than any recorded value.
#ifndef KVROUTE_ANALYSIS_LATENCY_HISTOGRAM_H_
#define KVROUTE_ANALYSIS_LATENCY_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace kvroute::analysis {

class LatencyHistogram {
 public:
  LatencyHistogram();

  // REQUIRES: value >= 0.
  void Record(sim::Time value);
  void RecordCensored() { ++censored_; }

  uint64_t count() const { return count_ + censored_; }
  uint64_t censored() const { return censored_; }

  // Nearest-rank percentile in seconds (p in (0, 100]); +inf if the rank falls
  // among censored values; NaN if empty. Exact below 1024 ns, else within 0.1%.
  double PercentileSeconds(double p) const;
  // The largest recorded value exactly; +inf if any censored; NaN if empty.
  double MaxSeconds() const;
  double MeanSeconds() const;  // of recorded values

 private:
  static size_t BucketOf(sim::Time value);
  static double BucketMidpoint(size_t bucket);

  std::vector<uint32_t> counts_;
  uint64_t count_ = 0;
  uint64_t censored_ = 0;
  sim::Time max_ = 0;
  double sum_seconds_ = 0;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_LATENCY_HISTOGRAM_H_
