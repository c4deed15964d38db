// Turning per-replica costs into a choice (seed 000, "从计算成本到调度概率").
// Costs are in any one unit; +infinity marks a replica that may not be chosen.
#ifndef KVROUTE_POLICIES_PROBABILISTIC_CHOICE_H_
#define KVROUTE_POLICIES_PROBABILISTIC_CHOICE_H_

#include <cstdint>
#include <span>

#include "sim/core/random_stream.h"

namespace kvroute::policies {

// Exponential decay (seed 000): p_i = 2^(-S_i/delta) / Σ_j 2^(-S_j/delta),
// i.e. the odds halve for every `delta` of extra cost. Computed relative to the
// minimum cost so large costs do not underflow. REQUIRES: delta > 0, one cost
// finite, probabilities.size() == costs.size().
void ExponentialDecayProbabilities(std::span<const double> costs, double delta,
                                   std::span<double> probabilities);

// Index drawn with the given (normalized) probabilities; one uniform draw.
// REQUIRES: some probability positive.
uint32_t SampleIndex(std::span<const double> probabilities, sim::RandomStream& rng);

// RTP-LLM FlexLB CostBasedPrefillStrategy (policies.md §9; seed 000
// "基于阈值截断的随机选择"), with RoutingConfig's defaults.
struct FlexLbConfig {
  double relative_tolerance = 0.1;   // of S_min
  double minimum_tolerance_ms = 20;  // floor of the tolerance, ms
  double pending_outlier = 3.0;      // drop pending > this x average pending
  double wait_outlier = 3.0;         // drop wait > this x average wait
};

struct FlexLbEndpoint {
  double cost_ms = 0;  // S_e = wait + prefill after the hit (+ router batching)
  double wait_ms = 0;  // remaining prefill of queued and in-flight work
  double pending = 0;  // requests queued on the endpoint
  bool available = true;
};

// Marks in `candidates` the endpoints FlexLB chooses among uniformly:
//   1. available endpoints with pending > 3·avg pending or wait > 3·avg wait
//      (averages over the available ones) are dropped; if that drops all,
//      the one with the least wait is kept;
//   2. tol = max(floor(0.1·S_min), 20 ms); keep S_e <= S_min + tol.
// Returns how many are marked. REQUIRES: one endpoint available, spans equal.
uint32_t FlexLbCandidates(std::span<const FlexLbEndpoint> endpoints, const FlexLbConfig& config,
                          std::span<uint8_t> candidates);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PROBABILISTIC_CHOICE_H_
