#include "models/length_distribution.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <map>
#include <sstream>

namespace kvroute::models {
namespace {

// The standard normal's distribution function and its inverse.
double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double PhiInverse(double p) {
  p = std::clamp(p, 1e-300, 1 - 1e-16);
  return std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
}
double Density(double z) { return std::exp(-z * z / 2) / std::sqrt(2 * M_PI); }

double Upper(double max) { return max > 0 ? max : INFINITY; }

}  // namespace

LengthDistribution LengthDistribution::Empirical(const std::vector<double>& values,
                                                 const std::vector<double>& weights,
                                                 std::string source) {
  std::map<double, double> merged;
  double total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    merged[values[i]] += weights[i];
    total += weights[i];
  }
  LengthDistribution d{.kind = Kind::kEmpirical};
  double cumulative = 0;
  for (const auto& [value, weight] : merged) {
    cumulative += weight;
    d.values.push_back(value);
    d.weights.push_back(weight);
    d.cumulative.push_back(cumulative / total);
  }
  d.cumulative.back() = 1;
  d.min = d.values.front();
  d.max = d.values.back();
  d.source = std::move(source);
  return d;
}

uint32_t LengthDistribution::Draw(sim::RandomStream& rng) const {
  // Clamped below 2^31 tokens: an unbounded tail must not overflow.
  return static_cast<uint32_t>(std::clamp(std::round(Quantile(rng.Uniform())), 0.0, 2147483647.0));
}

double LengthDistribution::MeanDraw() const {
  switch (kind) {
    case Kind::kFixed:
      return std::round(value);
    case Kind::kUniform:
      return Mean();
    case Kind::kEmpirical: {
      double total = 0, previous = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        total += std::max(0.0, std::round(values[i])) * (cumulative[i] - previous);
        previous = cumulative[i];
      }
      return total;
    }
    default:
      break;
  }
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
      return value;
    case Kind::kUniform:
      // Integers min..max inclusive, each equally likely.
      return std::floor(min + u * (max - min + 1));
    case Kind::kLognormal:
      // One uniform per draw: erf_inv(2u-1)*sqrt(2) is the normal quantile.
      x = median *
          std::exp(sigma * std::sqrt(2.0) * boost::math::erf_inv(2 * std::max(u, 1e-300) - 1));
      break;
    case Kind::kNormal: {
      // Truncated to [min, max] by inversion inside [Phi(a), Phi(b)].
      if (sd <= 0) return std::clamp(mean, min, Upper(max));
      const double a = Phi((min - mean) / sd), b = Phi((Upper(max) - mean) / sd);
      return std::clamp(mean + sd * PhiInverse(a + u * (b - a)), min, Upper(max));
    }
    case Kind::kExponential:
      x = -mean * std::log1p(-std::min(u, 1 - 1e-16));
      break;
    case Kind::kGamma:
      x = u <= 0 ? 0 : scale * boost::math::gamma_p_inv(shape, std::min(u, 1 - 1e-16));
      break;
    case Kind::kEmpirical: {
      const size_t i = static_cast<size_t>(
          std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
      return values[std::min(i, values.size() - 1)];
    }
  }
  if (max > 0) x = std::min(x, max);
  return std::max(x, min);
}

double LengthDistribution::Mean() const {
  switch (kind) {
    case Kind::kFixed:
      return value;
    case Kind::kUniform:
      return (min + max) / 2;
    case Kind::kLognormal:
      return median * std::exp(sigma * sigma / 2);
    case Kind::kNormal: {
      if (sd <= 0) return std::clamp(mean, min, Upper(max));
      const double alpha = (min - mean) / sd, beta = (Upper(max) - mean) / sd;
      const double mass = Phi(beta) - Phi(alpha);
      const double db = std::isfinite(beta) ? Density(beta) : 0;
      return mean + sd * (Density(alpha) - db) / mass;
    }
    case Kind::kExponential:
      return mean;
    case Kind::kGamma:
      return shape * scale;
    case Kind::kEmpirical: {
      double total = 0, previous = 0;
      for (size_t i = 0; i < values.size(); ++i) {
        total += values[i] * (cumulative[i] - previous);
        previous = cumulative[i];
      }
      return total;
    }
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
    case Kind::kNormal:
      out << "normal mean " << mean << " sd " << sd << " truncated to [" << min << ", "
          << Upper(max) << "]";
      break;
    case Kind::kExponential:
      out << "exponential mean " << mean;
      break;
    case Kind::kGamma:
      out << "gamma shape " << shape << " scale " << scale;
      break;
    case Kind::kEmpirical:
      out << "empirical, " << values.size() << " values from " << source;
      break;
  }
  return out.str();
}

}  // namespace kvroute::models
