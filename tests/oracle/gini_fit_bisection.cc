#include "tests/oracle/gini_fit_bisection.h"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/key_rates.h"

namespace kvroute::oracle {

std::vector<double> GiniFitByBisection(uint32_t keys, double gini, double max_share) {
  std::vector<double> below_top(keys);
  for (uint32_t k = 0; k < keys; ++k) {
    double p = 1.0 - (k + 0.5) / keys;
    below_top[k] = std::sqrt(2.0) * boost::math::erf_inv(2 * p - 1);
  }
  for (uint32_t k = keys; k-- > 0;) below_top[k] -= below_top[0];
  std::vector<double> shares(keys);
  auto capped_gini = [&](double sigma) {
    for (uint32_t k = 0; k < keys; ++k) shares[k] = std::exp(sigma * below_top[k]);
    double total = std::accumulate(shares.begin(), shares.end(), 0.0);
    for (double& s : shares) s /= total;
    if (max_share < 1) models::CapShares(&shares, max_share);
    return models::Gini(shares);
  };
  double lo = 0, hi = 12;
  if (capped_gini(hi) < gini) {
    throw std::invalid_argument("a Gini of " + std::to_string(gini) + " cannot be reached");
  }
  for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
    double mid = (lo + hi) / 2;
    (capped_gini(mid) < gini ? lo : hi) = mid;
  }
  capped_gini(hi);
  return shares;
}

}  // namespace kvroute::oracle
