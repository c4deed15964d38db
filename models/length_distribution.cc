#include "models/length_distribution.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <sstream>

namespace kvroute::models {

uint32_t LengthDistribution::Draw(sim::RandomStream& rng) const {
  // Clamped below 2^31 tokens: an unbounded lognormal tail must not overflow.
  return static_cast<uint32_t>(std::clamp(std::round(Quantile(rng.Uniform())), 0.0, 2147483647.0));
}

double LengthDistribution::MeanDraw() const {
  if (kind != Kind::kLognormal) return kind == Kind::kFixed ? std::round(value) : Mean();
  constexpr int kPoints = 100000;  // midpoint rule; error far below one token
  double total = 0;
  for (int i = 0; i < kPoints; ++i) {
    total += std::max(0.0, std::round(Quantile((i + 0.5) / kPoints)));
  }
  return total / kPoints;
}

double LengthDistribution::Quantile(double u) const {
  double x = 0;
  switch (kind) {
    case Kind::kFixed:
      x = value;
      break;
    case Kind::kUniform:
      // Integers min..max inclusive, each equally likely.
      x = std::floor(min + u * (max - min + 1));
      break;
    case Kind::kLognormal: {
      // Inversion: one uniform per draw. erf_inv(2u-1)*sqrt(2) is the normal quantile.
      double z = std::sqrt(2.0) * boost::math::erf_inv(2 * std::max(u, 1e-300) - 1);
      x = median * std::exp(sigma * z);
      if (max > 0) x = std::min(x, max);
      x = std::max(x, min);
      break;
    }
  }
  return x;
}

double LengthDistribution::Mean() const {
  switch (kind) {
    case Kind::kFixed:
      return value;
    case Kind::kUniform:
      return (min + max) / 2;
    case Kind::kLognormal:
      return median * std::exp(sigma * sigma / 2);
  }
  return 0;
}

std::string LengthDistribution::Describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kFixed:
      out << "fixed " << value;
      break;
    case Kind::kUniform:
      out << "uniform [" << min << ", " << max << "]";
      break;
    case Kind::kLognormal:
      out << "lognormal median " << median << " sigma " << sigma;
      break;
  }
  return out.str();
}

}  // namespace kvroute::models
