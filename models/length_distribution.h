// Token-length distributions for prompt parts and outputs (and durations:
// think times, tool latencies). Each draw consumes exactly one variate from
// the caller's stream (inversion of the distribution function), so the
// stream's position never depends on the values drawn.
#ifndef KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_
#define KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::models {

struct LengthDistribution {
  enum class Kind { kFixed, kUniform, kLognormal, kNormal, kExponential, kGamma, kEmpirical };
  Kind kind = Kind::kFixed;
  double value = 0;  // kFixed
  // kUniform: inclusive integer bounds. kNormal: truncation, the draw
  // conditioned on [min, max]. kLognormal, kExponential, kGamma: clamps.
  // max 0 means none except for kUniform.
  double min = 0;
  double max = 0;
  double median = 0;  // kLognormal: exp(mu)
  double sigma = 0;   // kLognormal: standard deviation of log(length)
  double mean = 0;    // kNormal (before truncation), kExponential
  double sd = 0;      // kNormal (before truncation)
  double shape = 0;   // kGamma: k
  double scale = 0;   // kGamma: theta (mean k theta)
  // kEmpirical: distinct values, ascending, their weights as given (summed
  // over repeats) and their cumulative probability (the last 1); `source`
  // says where they came from.
  std::vector<double> values = {}, weights = {}, cumulative = {};
  std::string source = "";

  // A draw rounded to the nearest integer and clamped to [min, max] where set.
  uint32_t Draw(sim::RandomStream& rng) const;
  // A draw before rounding (for durations in seconds); kUniform gives integers.
  double Sample(sim::RandomStream& rng) const { return Quantile(rng.Uniform()); }
  // The value at probability u in [0, 1), clamped, before rounding.
  double Quantile(double u) const;
  // The mean of Draw (rounding and clamping included), by quadrature over u.
  double MeanDraw() const;
  // The distribution's mean before rounding (clamps ignored; truncation not).
  double Mean() const;
  std::string Describe() const;

  static LengthDistribution Fixed(double v) { return {.kind = Kind::kFixed, .value = v}; }
  static LengthDistribution Uniform(double lo, double hi) {
    return {.kind = Kind::kUniform, .min = lo, .max = hi};
  }
  // Weighted values in any order (weights > 0, summing to anything positive).
  // REQUIRES: values.size() == weights.size() > 0.
  static LengthDistribution Empirical(const std::vector<double>& values,
                                      const std::vector<double>& weights, std::string source);
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_LENGTH_DISTRIBUTION_H_
