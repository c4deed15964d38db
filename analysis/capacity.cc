#include "analysis/capacity.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cassert>
#include <cmath>
#include <limits>

namespace kvroute::analysis {

Capacity SloCapacity(std::span<const LoadOutcome> outcomes) {
  assert(!outcomes.empty());
  std::vector<LoadOutcome> sorted(outcomes.begin(), outcomes.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const LoadOutcome& a, const LoadOutcome& b) { return a.qps < b.qps; });
  Capacity capacity;
  size_t passing = 0;
  while (passing < sorted.size() && sorted[passing].met) ++passing;
  capacity.right_censored = passing == sorted.size();
  capacity.upper_qps =
      capacity.right_censored ? std::numeric_limits<double>::infinity() : sorted[passing].qps;
  if (passing == 0) {
    capacity.left_censored = true;
    return capacity;
  }
  capacity.qps = sorted[passing - 1].qps;
  return capacity;
}

SeedStatistics Summarize(std::span<const double> values) {
  SeedStatistics s;
  s.n = static_cast<uint32_t>(values.size());
  if (s.n == 0) {
    s.mean = s.sd = s.ci_low = s.ci_high = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / s.n;
  if (s.n == 1) {
    s.sd = s.ci_low = s.ci_high = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(squares / (s.n - 1));
  boost::math::students_t t(s.n - 1);
  double half = boost::math::quantile(boost::math::complement(t, 0.025)) * s.sd / std::sqrt(s.n);
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

}  // namespace kvroute::analysis
