#include "models/alias_table.h"

#include <cassert>
#include <numeric>

namespace kvroute::models {

AliasTable::AliasTable(std::span<const double> weights)
    : probability_(weights.size()), alias_(weights.size()) {
  const size_t n = weights.size();
  assert(n > 0);
  double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  assert(total > 0);
  std::vector<double> scaled(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    uint32_t s = small.back(), l = large.back();
    small.pop_back();
    large.pop_back();
    probability_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    (scaled[l] < 1.0 ? small : large).push_back(l);
  }
  for (uint32_t i : large) probability_[i] = 1.0, alias_[i] = i;
  for (uint32_t i : small) probability_[i] = 1.0, alias_[i] = i;  // rounding leftovers
}

uint32_t AliasTable::Draw(sim::RandomStream& rng) const {
  double u = rng.Uniform() * static_cast<double>(probability_.size());
  uint32_t column = static_cast<uint32_t>(u);
  if (column >= probability_.size()) column = static_cast<uint32_t>(probability_.size() - 1);
  return (u - column) < probability_[column] ? column : alias_[column];
}

}  // namespace kvroute::models
