// Per-key traffic shares of a synthetic workload (seed 003 §5.1–§5.3): how the
// request rate is spread over routing keys. Shares are a fixed function of the
// configuration (no random draws), sorted hottest first, and sum to 1.
#ifndef KVROUTE_MODELS_KEY_RATES_H_
#define KVROUTE_MODELS_KEY_RATES_H_

#include <cstdint>
#include <span>
#include <vector>

namespace kvroute::models {

struct KeyRateConfig {
  enum class Kind { kZipf, kLognormal, kGini };
  Kind kind = Kind::kZipf;
  double zipf_s = 1.0;  // kZipf: key k (0-based) has weight 1/(k+1)^s
  double sigma = 1.0;   // kLognormal: sd of log(rate) across keys
  double gini = 0.75;   // kGini: target Gini coefficient of the shares
  // kGini: no key above this share (seed 003 §5.1: 0.3%); 1 means no cap.
  double max_share = 1.0;
  uint32_t active_keys = 0;    // only the top-K keys carry traffic (seed 003 §5.2); 0: all
  std::vector<double> whales;  // key i takes share whales[i] (seed 003 §9.3: 5/15/25/45%)
};

// The share of each of `keys` keys. REQUIRES: keys >= 1, whales sum < 1 and
// fewer whales than keys. Throws std::invalid_argument if a kGini target cannot
// be met under the cap.
std::vector<double> KeyShares(uint32_t keys, const KeyRateConfig& config);

std::vector<double> ZipfShares(uint32_t keys, double s);

// Shares whose logs are the normal quantiles at (k+0.5)/n scaled by sigma:
// a deterministic lognormal rate profile.
std::vector<double> LognormalShares(uint32_t keys, double sigma);

// Lognormal shares capped at `max_share` with sigma chosen so that the capped
// shares' Gini is `gini` (within 1e-4). The lognormal family is our choice: the
// paper gives only the Gini, the top-4% share (~47%) and the cap (seed 003 §8).
std::vector<double> GiniFitShares(uint32_t keys, double gini, double max_share);

// Clips shares at `cap` and spreads the excess over the uncapped keys in
// proportion to their shares, until none exceeds the cap. REQUIRES: cap * n >= 1.
void CapShares(std::vector<double>* shares, double cap);

// The Gini coefficient of non-negative values (0: equal, ->1: one key has all).
double Gini(std::span<const double> values);

// The share of the total carried by the top `fraction` of values.
double TopShare(std::span<const double> values, double fraction);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_KEY_RATES_H_
