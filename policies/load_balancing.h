// Load-balancing primitives shared by several policies.
#ifndef KVROUTE_POLICIES_LOAD_BALANCING_H_
#define KVROUTE_POLICIES_LOAD_BALANCING_H_

#include <cstdint>

#include "policies/policy.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {

// A healthy replica drawn uniformly. REQUIRES: one is healthy.
uint32_t UniformHealthy(const ClusterView& view, sim::RandomStream& rng);

// Power of two choices (Mitzenmacher 2001; shared/reference/policies.md §8):
// two distinct healthy replicas drawn uniformly, the one with fewer outstanding
// tokens wins, ties to the first draw. With one healthy replica, that one.
uint32_t PowerOfTwoChoices(const ClusterView& view, sim::RandomStream& rng);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_LOAD_BALANCING_H_
