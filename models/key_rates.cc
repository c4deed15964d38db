#include "models/key_rates.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <functional>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kvroute::models {
namespace {

void Normalize(std::vector<double>* shares) {
  double total = std::accumulate(shares->begin(), shares->end(), 0.0);
  for (double& s : *shares) s /= total;
}

}  // namespace

std::vector<double> ZipfShares(uint32_t keys, double s) {
  std::vector<double> shares(keys);
  for (uint32_t k = 0; k < keys; ++k) shares[k] = std::pow(k + 1.0, -s);
  Normalize(&shares);
  return shares;
}

std::vector<double> LognormalShares(uint32_t keys, double sigma) {
  std::vector<double> shares(keys);
  for (uint32_t k = 0; k < keys; ++k) {
    // Hottest first: key k takes the upper quantile 1 - (k+0.5)/n.
    double p = 1.0 - (k + 0.5) / keys;
    double z = std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
    shares[k] = std::exp(sigma * z);
  }
  Normalize(&shares);
  return shares;
}

void CapShares(std::vector<double>* shares, double cap) {
  // Water-filling: each pass caps the keys above the cap and rescales the rest
  // to the remaining mass; capped keys stay capped, so it ends within n passes.
  std::vector<double>& s = *shares;
  for (size_t pass = 0; pass < s.size(); ++pass) {
    double capped_mass = 0, free_mass = 0;
    for (double v : s) {
      if (v >= cap) {
        capped_mass += cap;
      } else {
        free_mass += v;
      }
    }
    if (free_mass <= 0) break;
    double scale = (1.0 - capped_mass) / free_mass;
    bool over = false;
    for (double& v : s) {
      if (v >= cap) {
        v = cap;
      } else {
        v *= scale;
        over = over || v > cap;
      }
    }
    if (!over) break;
  }
}

namespace {

std::vector<double> FitGiniShares(uint32_t keys, double gini, double max_share) {
  // Each key's normal quantile above the hottest key's (<= 0).
  std::vector<double> below_top(keys);
  for (uint32_t k = 0; k < keys; ++k) {
    double p = 1.0 - (k + 0.5) / keys;
    below_top[k] = std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
  }
  for (uint32_t k = keys; k-- > 0;) below_top[k] -= below_top[0];
  std::vector<double> shares(keys);
  auto capped_gini = [&](double sigma) {
    for (uint32_t k = 0; k < keys; ++k) shares[k] = std::exp(sigma * below_top[k]);
    Normalize(&shares);
    if (max_share < 1) CapShares(&shares, max_share);
    return Gini(shares);
  };
  // The capped Gini rises with sigma up to the cap's ceiling; bisect on sigma.
  double lo = 0, hi = 12;
  if (capped_gini(hi) < gini) {
    throw std::invalid_argument(
        "a Gini of " + std::to_string(gini) + " over " + std::to_string(keys) +
        " keys cannot be reached with no share above " + std::to_string(max_share));
  }
  for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
    double mid = (lo + hi) / 2;
    (capped_gini(mid) < gini ? lo : hi) = mid;
  }
  capped_gini(hi);
  return shares;
}

}  // namespace

std::vector<double> GiniFitShares(uint32_t keys, double gini, double max_share) {
  // The fit bisects some forty times over every key (128,824 for the paper's
  // flagship), and a scenario's loader and each of its points ask for the same
  // fit: the last few are kept. The fit is a pure function of its arguments,
  // so a kept one is the one a new fit would give, bit for bit.
  struct Fit {
    uint32_t keys;
    double gini, max_share;
    std::vector<double> shares;
  };
  constexpr size_t kKeptFits = 4;
  static std::mutex mutex;
  static std::vector<Fit> kept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Fit& f : kept) {
      if (f.keys == keys && f.gini == gini && f.max_share == max_share) return f.shares;
    }
  }
  std::vector<double> shares = FitGiniShares(keys, gini, max_share);  // may throw: keeps nothing
  std::lock_guard<std::mutex> lock(mutex);
  if (kept.size() == kKeptFits) kept.erase(kept.begin());
  kept.push_back({keys, gini, max_share, shares});
  return shares;
}

std::vector<double> KeyShares(uint32_t keys, const KeyRateConfig& c) {
  std::vector<double> shares;
  switch (c.kind) {
    case KeyRateConfig::Kind::kZipf:
      shares = ZipfShares(keys, c.zipf_s);
      break;
    case KeyRateConfig::Kind::kLognormal:
      shares = LognormalShares(keys, c.sigma);
      break;
    case KeyRateConfig::Kind::kGini:
      shares = GiniFitShares(keys, c.gini, c.max_share);
      break;
  }
  if (c.active_keys > 0 && c.active_keys < keys) {
    std::fill(shares.begin() + c.active_keys, shares.end(), 0.0);
    Normalize(&shares);
  }
  if (!c.whales.empty()) {
    // Whales take over the hottest keys; the rest keep their relative rates.
    double whale_total = std::accumulate(c.whales.begin(), c.whales.end(), 0.0);
    double rest = std::accumulate(shares.begin() + c.whales.size(), shares.end(), 0.0);
    for (size_t k = 0; k < shares.size(); ++k) {
      shares[k] = k < c.whales.size() ? c.whales[k]
                  : rest > 0          ? shares[k] * (1 - whale_total) / rest
                                      : 0;
    }
  }
  return shares;
}

namespace {

// The Gini coefficient of values in ascending order, read through `at`.
template <typename At>
double GiniOfAscending(size_t size, At at) {
  double n = static_cast<double>(size);
  double total = 0, weighted = 0;
  for (size_t i = 0; i < size; ++i) {
    total += at(i);
    weighted += (static_cast<double>(i) + 1) * at(i);
  }
  if (total <= 0 || size < 2) return 0;
  return 2 * weighted / (n * total) - (n + 1) / n;
}

}  // namespace

double Gini(std::span<const double> values) {
  const size_t n = values.size();
  // Shares come hottest first: read backwards, without a copy (the Gini fit
  // above asks some forty times over every key).
  if (std::is_sorted(values.begin(), values.end(), std::greater<>())) {
    return GiniOfAscending(n, [&](size_t i) { return values[n - 1 - i]; });
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return GiniOfAscending(n, [&](size_t i) { return sorted[i]; });
}

double TopShare(std::span<const double> values, double fraction) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  size_t top = static_cast<size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  if (total <= 0) return 0;
  return std::accumulate(sorted.begin(), sorted.begin() + std::min(top, sorted.size()), 0.0) /
         total;
}

}  // namespace kvroute::models
