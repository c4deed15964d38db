#include "policies/llmd_scorers.h"

#include <algorithm>
#include <limits>

namespace kvroute::policies {

void LlmdQueueScores(std::span<const double> queue, std::span<const uint8_t> eligible,
                     std::span<double> scores) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < queue.size(); ++i) {
    if (!eligible[i]) continue;
    lo = std::min(lo, queue[i]);
    hi = std::max(hi, queue[i]);
  }
  for (size_t i = 0; i < queue.size(); ++i) {
    scores[i] = !eligible[i] ? 0 : hi == lo ? 1 : (hi - queue[i]) / (hi - lo);
  }
}

double LlmdLoadAwareScore(double waiting, double threshold) {
  if (waiting <= 0) return 0.5;
  return 0.5 * (1 - std::min(waiting, threshold) / threshold);
}

}  // namespace kvroute::policies
