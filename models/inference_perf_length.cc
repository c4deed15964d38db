#include "models/inference_perf_length.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace kvroute::models {
namespace {

// The stream as a standard random bit generator, for std::poisson_distribution.
struct Bits {
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return UINT64_MAX; }
  uint64_t operator()() { return rng->NextU64(); }
  sim::RandomStream* rng;
};

double Raw(const InferencePerfLength& d, sim::RandomStream& rng) {
  using Type = InferencePerfLength::Type;
  switch (d.type) {
    case Type::kFixed:
      return d.mean;
    case Type::kNormal:
      return d.mean + d.std_dev * rng.Normal();
    case Type::kSkewNormal: {
      const double delta = d.skew / std::sqrt(1 + d.skew * d.skew);
      const double u0 = rng.Normal(), v = rng.Normal();
      const double u1 = delta * u0 + std::sqrt(1 - delta * delta) * v;
      return d.mean + d.std_dev * (u0 >= 0 ? u1 : -u1);
    }
    case Type::kLognormal: {
      if (d.std_dev <= 0) return d.mean;
      const double sigma2 = std::log(1 + (d.std_dev / d.mean) * (d.std_dev / d.mean));
      return std::exp(std::log(d.mean) - sigma2 / 2 + std::sqrt(sigma2) * rng.Normal());
    }
    case Type::kUniform:
      return d.min + (d.max + 1 - d.min) * rng.Uniform();
    case Type::kPoisson: {
      Bits bits{&rng};
      std::poisson_distribution<uint64_t> poisson(d.mean > 0 ? d.mean : 1.0);
      return static_cast<double>(poisson(bits));
    }
  }
  return 0;
}

}  // namespace

uint32_t InferencePerfLength::Draw(sim::RandomStream& rng) const {
  if (type == Type::kFixed) return static_cast<uint32_t>(std::trunc(mean));  // int(mean)
  const double clipped = std::clamp(Raw(*this, rng), min, max);
  // numpy's round is half to even, as nearbyint is in the default rounding mode.
  return static_cast<uint32_t>(std::clamp(std::nearbyint(clipped), min, max));
}

std::string InferencePerfLength::Describe() const {
  char text[160];
  switch (type) {
    case Type::kFixed:
      std::snprintf(text, sizeof text, "%g", std::trunc(mean));
      break;
    case Type::kNormal:
      std::snprintf(text, sizeof text, "normal(mean %g, sd %g) clipped to [%g, %g]", mean, std_dev,
                    min, max);
      break;
    case Type::kSkewNormal:
      std::snprintf(text, sizeof text, "skew_normal(loc %g, scale %g, skew %g) clipped to [%g, %g]",
                    mean, std_dev, skew, min, max);
      break;
    case Type::kLognormal:
      std::snprintf(text, sizeof text, "lognormal(mean %g, sd %g) clipped to [%g, %g]", mean,
                    std_dev, min, max);
      break;
    case Type::kUniform:
      std::snprintf(text, sizeof text, "uniform[%g, %g]", min, max);
      break;
    case Type::kPoisson:
      std::snprintf(text, sizeof text, "poisson(%g) clipped to [%g, %g]", mean > 0 ? mean : 1.0,
                    min, max);
      break;
  }
  return text;
}

}  // namespace kvroute::models
