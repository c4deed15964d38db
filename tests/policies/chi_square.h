// Pearson's chi-square goodness-of-fit check for sampled choice frequencies.
#ifndef KVROUTE_TESTS_POLICIES_CHI_SQUARE_H_
#define KVROUTE_TESTS_POLICIES_CHI_SQUARE_H_

#include <boost/math/distributions/chi_squared.hpp>
#include <cstdint>
#include <vector>

namespace kvroute::policies {

// True when `counts` are consistent with `probabilities` at significance
// 0.001: the statistic over cells with positive probability stays below the
// chi-square quantile with (cells - 1) degrees of freedom. A cell of zero
// probability must have no count.
inline bool FitsProbabilities(const std::vector<uint64_t>& counts,
                              const std::vector<double>& probabilities) {
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  double statistic = 0;
  int cells = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (probabilities[i] <= 0) {
      if (counts[i] > 0) return false;
      continue;
    }
    double expected = probabilities[i] * static_cast<double>(n);
    double diff = static_cast<double>(counts[i]) - expected;
    statistic += diff * diff / expected;
    ++cells;
  }
  if (cells < 2) return true;
  boost::math::chi_squared distribution(cells - 1);
  return statistic < boost::math::quantile(distribution, 0.999);
}

}  // namespace kvroute::policies

#endif  // KVROUTE_TESTS_POLICIES_CHI_SQUARE_H_
