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

// Lognormal shares at a given sigma, capped, and their Gini: the one expensive
// step of the fit (an exp per key, then the cap's passes and the Gini's sum).
class CappedLognormal {
 public:
  CappedLognormal(uint32_t keys, double max_share)
      : max_share_(max_share), below_top_(keys), shares_(keys) {
    // Each key's normal quantile above the hottest key's (<= 0).
    for (uint32_t k = 0; k < keys; ++k) {
      double p = 1.0 - (k + 0.5) / keys;
      below_top_[k] = std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
    }
    for (uint32_t k = keys; k-- > 0;) below_top_[k] -= below_top_[0];
  }

  double GiniAt(double sigma) {
    double total = 0;  // summed in key order, as Normalize sums
    for (size_t k = 0; k < shares_.size(); ++k) {
      shares_[k] = std::exp(sigma * below_top_[k]);
      total += shares_[k];
    }
    for (double& s : shares_) s /= total;
    if (max_share_ < 1) CapShares(&shares_, max_share_);
    last_sigma_ = sigma;
    return Gini(shares_);
  }

  // Keeps a copy of the last shares computed, for SharesAt.
  void Keep() {
    kept_ = shares_;
    kept_sigma_ = last_sigma_;
  }
  // The shares at `sigma`, computed again unless they are the last or the kept.
  std::vector<double> SharesAt(double sigma) {
    if (sigma == kept_sigma_ && sigma != last_sigma_) return std::move(kept_);
    if (sigma != last_sigma_) GiniAt(sigma);
    return std::move(shares_);
  }

 private:
  double max_share_;
  std::vector<double> below_top_, shares_, kept_;
  double last_sigma_ = -1, kept_sigma_ = -1;
};

// The fit is defined as a bisection on sigma over [0, 12] down to a bracket of
// 1e-9, whose last upper end gives the shares (the capped Gini rises with
// sigma). Each of its ~34 steps only asks on which side of the root its
// midpoint lies, so the steps are replayed exactly, but a midpoint is
// evaluated only when no evaluation already tells: a few secant steps first
// close in on the root from both sides, and a midpoint more than kMargin below
// the highest sigma evaluated below the target (or above the lowest evaluated
// above it) lies on that side. kMargin times the Gini's slope (~0.1) is
// hundreds of times the rounding error of its sums over 10^5 keys, so no
// midpoint's side can differ from what evaluating it would give: ~10
// evaluations instead of 36 for the flagship's 128,824 keys, the same shares
// to the bit (tests/models/gini_fit_test.cc replays the plain bisection).
std::vector<double> FitGiniShares(uint32_t keys, double gini, double max_share) {
  constexpr double kTop = 12, kBracket = 1e-9, kMargin = 1e-9, kProbe = kBracket / 16;
  constexpr int kSearchSteps = 16;
  CappedLognormal profile(keys, max_share);
  const double top_gini = profile.GiniAt(kTop);
  if (top_gini < gini) {
    throw std::invalid_argument(
        "a Gini of " + std::to_string(gini) + " over " + std::to_string(keys) +
        " keys cannot be reached with no share above " + std::to_string(max_share));
  }
  // The closest sigmas evaluated on each side of the root. Sigma 0 (equal
  // shares) is never evaluated, and no midpoint lies below it.
  double below = 0, above = kTop;
  auto gini_above_target = [&](double sigma) {
    double f = profile.GiniAt(sigma) - gini;
    if (f < 0) {
      below = std::max(below, sigma);
    } else {
      above = std::min(above, sigma);
    }
    return f;
  };
  // The search starts where the uncapped lognormal has this Gini,
  // G = 2 Phi(sigma / sqrt 2) - 1, with that curve's slope for its first step;
  // then secant steps, each kept inside the bracket, and once they converge a
  // probe just across the root so that it is bracketed on both sides.
  double x = gini > 0 && gini < 1 ? 2 * boost::math::erf_inv(gini) : kTop / 2;
  double x_prev = 0, f_prev = 0;
  for (int step = 0; step < kSearchSteps && above - below > kBracket / 8; ++step) {
    if (!(x > below && x < above)) x = (below + above) / 2;
    double f = gini_above_target(x);
    double next;
    if (step == 0) {
      double slope = std::sqrt(2.0) * std::exp(-x * x / 4) / std::sqrt(2 * M_PI);
      next = x - f / slope;
    } else {
      next = f == f_prev ? x : x - f * (x - x_prev) / (f - f_prev);
    }
    if (std::abs(next - x) < kProbe) next = f < 0 ? x + kProbe : x - kProbe;
    x_prev = x, f_prev = f, x = next;
  }
  double lo = 0, hi = kTop;
  for (int i = 0; i < 60 && hi - lo > kBracket; ++i) {
    double mid = (lo + hi) / 2;
    bool mid_below;
    if (mid < below - kMargin) {
      mid_below = true;
    } else if (mid > above + kMargin) {
      mid_below = false;
    } else {
      mid_below = gini_above_target(mid) < 0;
      if (!mid_below) profile.Keep();  // the bisection's upper end, perhaps its last
    }
    (mid_below ? lo : hi) = mid;
  }
  return profile.SharesAt(hi);
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
