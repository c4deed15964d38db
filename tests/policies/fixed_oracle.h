// A cache state given by hand for policy tests: replica r holds the first
// cached[r] blocks of every chain.
#ifndef KVROUTE_TESTS_POLICIES_FIXED_ORACLE_H_
#define KVROUTE_TESTS_POLICIES_FIXED_ORACLE_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "policies/policy.h"

namespace kvroute::policies {

class FixedOracle : public CacheOracle {
 public:
  explicit FixedOracle(std::vector<uint32_t> cached) : cached_(std::move(cached)) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return std::min<uint32_t>(cached_[replica], static_cast<uint32_t>(chain.size()));
  }

 private:
  std::vector<uint32_t> cached_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_TESTS_POLICIES_FIXED_ORACLE_H_
