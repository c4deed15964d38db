// The CacheRoute planner (seed 003 §3.1, Algorithm 1). From per-key request
// rates it builds a table T: key -> set of destinations:
//   1. k_b = max(1, ceil(λ_b / q_cap))                        (eq. 2)
//   2. keys in decreasing λ_b are admitted while Σ k_b <= C = R·W  (eq. 3);
//      a key that does not fit is skipped and the scan goes on (lines 10-11)
//   3. LPT: each destination starts at its expected cold-tail load (the
//      non-admitted rate, spread evenly by the power-of-two fallback); in
//      decreasing λ_b, each admitted key's k_b shares of λ_b/k_b go to the k_b
//      least-loaded distinct destinations.
// Keys with zero measured rate are never admitted: there is nothing to keep warm.
// k_b is capped at R, the number of distinct destinations there are.
#ifndef KVROUTE_POLICIES_CACHEROUTE_PLANNER_H_
#define KVROUTE_POLICIES_CACHEROUTE_PLANNER_H_

#include <cstdint>
#include <span>
#include <vector>

namespace kvroute::policies {

// The paper's ablations (seed 003 §3): affinity only (k_b = 1, each key on
// its hashed destination), + replication (k_b of eq. 2 on hashed distinct
// destinations), + LPT (the full planner).
enum class PlanAblation { kAffinityOnly = 0, kReplication = 1, kFull = 2 };

struct PlannerConfig {
  uint32_t destinations = 0;           // R
  double q_cap = 0;                    // req/s one destination sustains within SLO
  uint32_t slots_per_destination = 0;  // W: warm prefix slots per destination
  PlanAblation ablation = PlanAblation::kFull;
};

class RoutingPlan {
 public:
  // Destinations of `key`, least-loaded-first in placement order; empty when
  // the key is not admitted.
  std::span<const uint32_t> Members(uint32_t key) const {
    if (key + 1 >= offsets_.size()) return {};
    return {members_.data() + offsets_[key], members_.data() + offsets_[key + 1]};
  }
  bool Admitted(uint32_t key) const { return !Members(key).empty(); }

  uint32_t admitted_keys() const { return admitted_keys_; }
  uint64_t slots_used() const { return slots_used_; }        // Σ k_b over admitted keys
  double cold_tail_rate() const { return cold_tail_rate_; }  // req/s not admitted
  // Expected req/s at each destination: cold-tail share plus placed shares.
  const std::vector<double>& expected_load() const { return expected_load_; }
  double ExpectedMaxOverMean() const;
  size_t keys() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }

 private:
  friend RoutingPlan BuildPlan(std::span<const double>, const PlannerConfig&);
  friend RoutingPlan BuildPlanFrom(const RoutingPlan&, std::span<const double>,
                                   const PlannerConfig&, double);
  friend RoutingPlan PlanFromTable(std::span<const std::vector<uint32_t>>, uint32_t);
  std::vector<uint32_t> offsets_;  // CSR: key k's members are [offsets_[k], offsets_[k+1])
  std::vector<uint32_t> members_;
  std::vector<double> expected_load_;
  uint32_t admitted_keys_ = 0;
  uint64_t slots_used_ = 0;
  double cold_tail_rate_ = 0;
};

// REQUIRES: config.destinations > 0, config.q_cap > 0; rates non-negative.
RoutingPlan BuildPlan(std::span<const double> key_rates, const PlannerConfig& config);

// The share of keys admitted in either plan whose destination set differs.
double PlanChurn(const RoutingPlan& before, const RoutingPlan& after);

// The share of keys admitted in both plans whose k_b (number of
// destinations) differs: seed 003 §5.4's "keys whose k_b changes" under rate
// drift (1.1% published), apart from the keys that enter or leave the
// admitted set. 0 when no key is admitted in both.
double KbChangeShare(const RoutingPlan& before, const RoutingPlan& after);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_CACHEROUTE_PLANNER_H_
