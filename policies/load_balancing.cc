#include "policies/load_balancing.h"

#include <cassert>

namespace kvroute::policies {
namespace {

// The k-th healthy replica (0-based). REQUIRES: k < number healthy.
uint32_t NthHealthy(const ClusterView& view, uint64_t k) {
  if (k < view.size() && view.healthy(static_cast<uint32_t>(k))) {
    bool all_before_healthy = true;
    for (uint32_t r = 0; r < k && all_before_healthy; ++r) all_before_healthy = view.healthy(r);
    if (all_before_healthy) return static_cast<uint32_t>(k);
  }
  for (uint32_t r = 0; r < view.size(); ++r) {
    if (view.healthy(r) && k-- == 0) return r;
  }
  assert(false && "no healthy replica");
  return 0;
}

uint32_t CountHealthy(const ClusterView& view) {
  uint32_t n = 0;
  for (uint32_t r = 0; r < view.size(); ++r) n += view.healthy(r) ? 1 : 0;
  return n;
}

}  // namespace

uint32_t UniformHealthy(const ClusterView& view, sim::RandomStream& rng) {
  return NthHealthy(view, rng.UniformInt(CountHealthy(view)));
}

uint32_t PowerOfTwoChoices(const ClusterView& view, sim::RandomStream& rng) {
  uint32_t healthy = CountHealthy(view);
  assert(healthy > 0);
  if (healthy == 1) return NthHealthy(view, 0);
  uint64_t a = rng.UniformInt(healthy);
  uint64_t b = rng.UniformInt(healthy - 1);
  if (b >= a) ++b;  // distinct, still uniform
  uint32_t first = NthHealthy(view, a), second = NthHealthy(view, b);
  return view.replicas[first].outstanding_tokens() <= view.replicas[second].outstanding_tokens()
             ? first
             : second;
}

}  // namespace kvroute::policies
