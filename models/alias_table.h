// Walker's alias method (Vose's construction): O(1) draws from a discrete
// distribution with one uniform variate per draw.
#ifndef KVROUTE_MODELS_ALIAS_TABLE_H_
#define KVROUTE_MODELS_ALIAS_TABLE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::models {

class AliasTable {
 public:
  // REQUIRES: weights non-empty, non-negative, with a positive sum.
  explicit AliasTable(std::span<const double> weights);

  uint32_t Draw(sim::RandomStream& rng) const;
  size_t size() const { return probability_.size(); }

 private:
  std::vector<double> probability_;
  std::vector<uint32_t> alias_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_ALIAS_TABLE_H_
