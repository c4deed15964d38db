// A token length of inference-perf's shared-prefix data: a fixed count or one
// of its distributions (kubernetes-sigs/inference-perf,
// inference_perf/config/common.py Distribution), drawn as its
// sample_from_distribution draws (inference_perf/utils/numeric/distribution/
// utils.py): normal, skew-normal (Azzalini's two-normal method), lognormal
// with the given mean and standard deviation (moment-matched), uniform over
// [min, max + 1), Poisson; every draw clipped to [min, max], rounded half to
// even, clipped again. A fixed count is int(mean), unclipped. The draws come
// from kvroute's named streams, not numpy's, so the lengths differ from
// inference-perf's one by one but follow the same distribution.
#ifndef KVROUTE_MODELS_INFERENCE_PERF_LENGTH_H_
#define KVROUTE_MODELS_INFERENCE_PERF_LENGTH_H_

#include <cstdint>
#include <string>

#include "sim/core/random_stream.h"

namespace kvroute::models {

struct InferencePerfLength {
  enum class Type { kFixed, kNormal, kSkewNormal, kLognormal, kUniform, kPoisson };
  Type type = Type::kFixed;
  double mean = 0;  // kFixed: the count
  double std_dev = 0;
  double skew = 0;  // kSkewNormal
  double min = 0, max = 0;

  static InferencePerfLength Fixed(double count) { return {.type = Type::kFixed, .mean = count}; }
  bool fixed() const { return type == Type::kFixed; }

  // One draw. A fixed count draws nothing from `rng`.
  uint32_t Draw(sim::RandomStream& rng) const;
  std::string Describe() const;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_INFERENCE_PERF_LENGTH_H_
