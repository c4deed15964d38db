// `kvroute size` (issue 15): the cheapest fleet that meets every SLO of a
// scenario at a target load, over candidate profiles (GPU kind x tensor
// parallelism), each costed at its GPU's price: replicas of one candidate, or
// with `mixes`, replicas of several candidates, each kind a deployment of its
// own profile and price, all in one routing pool. A fleet meets the SLOs
// when, for each, the upper bound of the two-sided 95% Student-t interval of
// its percentile over the scenario's paired seeds is at most the threshold
// (with one seed, the value itself). Replica counts are bisected
// (analysis/fleet_search.h), and the fleets either side of each answer are
// reported so that a non-monotone policy shows (seed 003, Table 14).
#ifndef KVROUTE_SIM_RUNNER_SIZING_H_
#define KVROUTE_SIM_RUNNER_SIZING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/capacity.h"
#include "analysis/fleet_cost.h"
#include "analysis/fleet_search.h"
#include "sim/runner/point_executor.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

// One fleet simulated at the target load over the scenario's seeds.
struct FleetEvaluation {
  analysis::Fleet fleet;  // replicas of each candidate
  uint32_t replicas = 0;  // in all
  bool met = false;
  std::vector<analysis::SeedStatistics> slo;  // per SLO, over seeds, seconds
  std::vector<double> slo_bound;              // per SLO: what is held to the threshold
  uint64_t gpus = 0;
  double usd_per_hour = 0;
  double token_hit_rate = 0;                 // mean over seeds
  double imbalance = 0;                      // mean over seeds, max/mean requests per replica
  double kv_utilization = 0;                 // mean over seeds and the measured buckets
  double usd_per_million_prompt_tokens = 0;  // over the arrival window, mean over seeds
  double preemptions = 0;                    // mean over seeds, whole run
  double in_system_per_replica =
      0;                // requests in flight per replica, time-average, mean over seeds
  std::string binding;  // BindingResource of this fleet
};

// What runs out first in a fleet (issue 15), read from its metrics in this
// order: "KV" when requests were preempted for KV blocks or the pools were at
// least 90% used on average; "sequence slots" when a replica held on average
// at least max_num_seqs requests (they queue for a slot); "imbalance" when the
// busiest replica took at least 1.5x the mean; else "compute" (for a mix,
// max_num_seqs is the mean over its replicas). A rule of thumb for reading a
// failing fleet, not a measurement of each resource's margin.
std::string BindingResource(const FleetEvaluation& e, double max_num_seqs);

struct SizingOptions {
  double qps = 0;
  size_t policy_index = 0;
  uint32_t max_replicas = 64;  // per candidate
  unsigned jobs = 1;           // seeds simulated at once
  bool mixes = false;          // also fleets that mix candidates (one routing pool)
  bool ignore_limits = false;  // lift kMaxMixedFleets and the per-point limits of a mix
};

// The most fleets the search of mixes may simulate unless limits are lifted.
inline constexpr uint64_t kMaxMixedFleets = 1000;

// An upper bound on the fleets the search of mixes simulates (besides the
// single kinds), given the most replicas of each kind worth trying in a mix:
// every combination of the counts of all kinds but the last, each with one
// bisection of the last kind's count over [0, its cap] (the largest count,
// then ceil(log2(cap + 1)) halvings).
uint64_t MixedFleetBound(const std::vector<uint32_t>& caps);

struct SizingReport {
  std::vector<analysis::FleetKind> kinds;  // one per candidate
  analysis::FleetSearchResult search;
  std::vector<FleetEvaluation> evaluations;  // every fleet simulated, in order
  // With mixes: the cap of each kind in a mix (fewer than its fewest alone),
  // and the bound on the mixed fleets that follows (MixedFleetBound).
  std::vector<uint32_t> mix_caps;
  uint64_t mixed_fleet_bound = 0;
};

// `candidates`: the same scenario loaded once per candidate profile. REQUIRES
// each has one deployment and a price (Scenario::UsdPerGpuHour() > 0); with
// mixes, that they can share a pool (CheckMixable). Throws std::runtime_error
// when the mixes could take more than kMaxMixedFleets fleets, or a mix would
// exceed the per-point limits (work_estimate.h), unless ignore_limits.
SizingReport SizeFleet(const std::vector<Scenario>& candidates, const SizingOptions& options);

// Throws std::invalid_argument saying why the candidates cannot be replicas
// of one routing pool: another model, another KV block size (prefix hashes
// are per block), a host KV tier, an autoscaler (the rules of
// scenario_loader_disaggregation.cc's CheckDeploymentProfiles).
void CheckMixable(const std::vector<Scenario>& candidates);

// The scenario that runs `fleet`: one candidate alone is that candidate with
// its count; several are one deployment per candidate with its profile and
// price (named after the profile), in the order of the candidates, all in the
// first candidate's deployment's pool, the first carrying its policy.
Scenario FleetScenario(const std::vector<Scenario>& candidates, const analysis::Fleet& fleet);

// Simulates `fleet` at the target load over the seeds and judges it against
// the SLOs.
FleetEvaluation EvaluateFleet(const std::vector<Scenario>& candidates, const analysis::Fleet& fleet,
                              const SizingOptions& options);

// `replicas` of candidate `k` of `kinds` alone.
analysis::Fleet OneKind(size_t kinds, size_t k, uint32_t replicas);

// The evaluation of `fleet`, if simulated.
const FleetEvaluation* FindEvaluation(const SizingReport& report, const analysis::Fleet& fleet);

// The neighbours of a fleet: for each kind in it, the fleet with one replica
// of that kind fewer (`more` false) or more, in the kinds' order; a count of
// `max_replicas` gets none more.
std::vector<analysis::Fleet> Neighbours(const analysis::Fleet& fleet, bool more,
                                        uint32_t max_replicas);

// The inverse of sizing: for each candidate, as many replicas as
// `usd_per_hour` buys, and the highest load they sustain within the SLOs,
// bisected between the lowest and the highest load of the scenario's sweep
// until the bracket is at most `precision_qps` wide.
struct BudgetLoad {
  size_t candidate = 0;     // of a single kind
  analysis::Fleet fleet;    // the replicas of each candidate; empty when none
  uint32_t replicas = 0;    // in all; 0: the budget buys none
  double meets_qps = 0;     // the highest load found to meet the SLOs
  double misses_qps = 0;    // the lowest load found to miss them; 0: none tried does
  bool below_grid = false;  // even the sweep's lowest load misses
  std::vector<FleetEvaluation> evaluations;  // every load simulated, in order
};
std::vector<BudgetLoad> LoadWithinBudget(const std::vector<Scenario>& candidates,
                                         double usd_per_hour, const SizingOptions& options,
                                         double precision_qps);

// The fleets of two or more kinds that `usd_per_hour` buys and that no
// replica of any kind can be added to within it (nor beyond max_replicas of a
// kind): the only mixes a load-monotone policy needs to try. In the order of
// the counts, the first kind's slowest.
std::vector<analysis::Fleet> MaximalMixes(const std::vector<double>& usd_per_replica,
                                          double usd_per_hour, uint32_t max_replicas);

// --budget with --mixes: the mix the budget buys that sustains the most load,
// if it beats every single kind (`singles`, from LoadWithinBudget). Each
// maximal mix is simulated first just above the best load found so far (by
// the precision); only one that meets there is bisected, and becomes the
// best. Throws std::runtime_error for more than kMaxMixedFleets maximal mixes
// unless ignore_limits.
struct BudgetMix {
  BudgetLoad best;  // best.fleet empty: no mix beats the best single kind
  uint64_t maximal_mixes = 0;
  std::vector<FleetEvaluation> evaluations;  // every mix and load simulated, in order
};
BudgetMix MixWithinBudget(const std::vector<Scenario>& candidates, double usd_per_hour,
                          const SizingOptions& options, double precision_qps,
                          const std::vector<BudgetLoad>& singles);

// The scenario with `replicas` replicas in its one deployment.
Scenario WithReplicas(const Scenario& s, uint32_t replicas);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SIZING_H_
