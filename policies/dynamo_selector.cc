#include "policies/dynamo_selector.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "policies/probabilistic_choice.h"

namespace kvroute::policies {

uint32_t DynamoSelect(std::span<const double> logits, double temperature, sim::RandomStream& rng,
                      std::span<double> scratch) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double l : logits) {
    if (!std::isfinite(l)) continue;
    lo = std::min(lo, l);
    hi = std::max(hi, l);
  }
  if (temperature <= 0) {
    uint32_t best = 0, ties = 0;
    for (uint32_t w = 0; w < logits.size(); ++w) {
      if (logits[w] == lo && rng.UniformInt(++ties) == 0) best = w;  // reservoir sampling
    }
    return best;
  }
  double sum = 0;
  for (size_t w = 0; w < logits.size(); ++w) {
    scratch[w] = !std::isfinite(logits[w]) ? 0
                 : hi == lo                ? 1
                            : std::exp(-(logits[w] - lo) / ((hi - lo) * temperature));
    sum += scratch[w];
  }
  for (double& p : scratch) p /= sum;
  return SampleIndex(scratch, rng);
}

}  // namespace kvroute::policies
