// Token-length distributions for prompt parts and outputs. Each draw consumes
// exactly one variate from the caller's stream, so the stream's position never
// depends on the values drawn.
#ifndef KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_
#define KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_

#include <cstdint>
#include <string>

#include "sim/core/random_stream.h"

namespace kvroute::models {

struct LengthDistribution {
  enum class Kind { kFixed, kUniform, kLognormal };
  Kind kind = Kind::kFixed;
  double value = 0;  // kFixed
  double min = 0;    // kUniform bounds; clamp for kLognormal
  double max = 0;
  double median = 0;  // kLognormal: exp(mu)
  double sigma = 0;   // kLognormal: standard deviation of log(length)

  // A draw rounded to the nearest integer and clamped to [min, max] where set.
  uint32_t Draw(sim::RandomStream& rng) const;
  // A draw before rounding (for durations in seconds); kUniform gives integers.
  double Sample(sim::RandomStream& rng) const { return Quantile(rng.Uniform()); }
  // The value at probability u in [0, 1), clamped, before rounding.
  double Quantile(double u) const;
  // The mean of Draw (rounding and clamping included), by quadrature over u.
  double MeanDraw() const;
  // The distribution's mean before rounding (clamping ignored for kLognormal).
  double Mean() const;
  std::string Describe() const;

  static LengthDistribution Fixed(double v) { return {.kind = Kind::kFixed, .value = v}; }
  static LengthDistribution Uniform(double lo, double hi) {
    return {.kind = Kind::kUniform, .min = lo, .max = hi};
  }
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_
