// The capacity of consistent hashing with bounded loads (Mirrokni, Thorup,
// Zadimoghaddam, arXiv 1608.01350; policies.md §7): no bin may hold more than
// C = ceil((1 + epsilon) * balls / bins) balls, where `balls` counts the ball
// being placed.
#ifndef KVROUTE_POLICIES_BOUNDED_LOAD_H_
#define KVROUTE_POLICIES_BOUNDED_LOAD_H_

#include <cmath>
#include <cstdint>

namespace kvroute::policies {

// REQUIRES: bins > 0, epsilon >= 0. At least 1.
inline uint64_t BoundedLoadCapacity(uint64_t balls, uint64_t bins, double epsilon) {
  double c = std::ceil((1 + epsilon) * static_cast<double>(balls) / static_cast<double>(bins));
  return c < 1 ? 1 : static_cast<uint64_t>(c);
}

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_BOUNDED_LOAD_H_
