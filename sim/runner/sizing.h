// `kvroute size` (issue 15): the cheapest fleet of one deployment that meets
// every SLO of a scenario at a target load, over candidate profiles (GPU kind
// x tensor parallelism), each costed at its GPU's price. A fleet meets the
// SLOs when, for each, the upper bound of the two-sided 95% Student-t
// interval of its percentile over the scenario's paired seeds is at most the
// threshold (with one seed, the value itself). The replica count is bisected
// per candidate (analysis/fleet_search.h), and the counts either side of each
// answer are reported so that a non-monotone policy shows (seed 003, Table 14).
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
  size_t candidate = 0;  // index into the candidates
  uint32_t replicas = 0;
  bool met = false;
  std::vector<analysis::SeedStatistics> slo;  // per SLO, over seeds, seconds
  std::vector<double> slo_bound;              // per SLO: what is held to the threshold
  analysis::FleetCost cost;
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
// busiest replica took at least 1.5x the mean; else "compute". A rule of thumb
// for reading a failing fleet, not a measurement of each resource's margin.
std::string BindingResource(const FleetEvaluation& e, int max_num_seqs);

struct SizingOptions {
  double qps = 0;
  size_t policy_index = 0;
  uint32_t max_replicas = 64;  // per candidate
  unsigned jobs = 1;           // seeds simulated at once
};

struct SizingReport {
  std::vector<analysis::FleetKind> kinds;  // one per candidate
  analysis::FleetSearchResult search;
  std::vector<FleetEvaluation> evaluations;  // every fleet simulated, in order
};

// `candidates`: the same scenario loaded once per candidate profile. REQUIRES
// each has one deployment and a price (Scenario::UsdPerGpuHour() > 0).
SizingReport SizeFleet(const std::vector<Scenario>& candidates, const SizingOptions& options);

// Simulates `replicas` of `candidate` (index `index`) at the target load over
// its seeds and judges it against its SLOs.
FleetEvaluation EvaluateFleet(const Scenario& candidate, size_t index, uint32_t replicas,
                              const SizingOptions& options);

// The evaluation of `replicas` of `candidate`, if simulated.
const FleetEvaluation* FindEvaluation(const SizingReport& report, size_t candidate,
                                      uint32_t replicas);

// The inverse of sizing: for each candidate, as many replicas as
// `usd_per_hour` buys, and the highest load they sustain within the SLOs,
// bisected between the lowest and the highest load of the scenario's sweep
// until the bracket is at most `precision_qps` wide.
struct BudgetLoad {
  size_t candidate = 0;
  uint32_t replicas = 0;    // 0: the budget buys none
  double meets_qps = 0;     // the highest load found to meet the SLOs
  double misses_qps = 0;    // the lowest load found to miss them; 0: none tried does
  bool below_grid = false;  // even the sweep's lowest load misses
  std::vector<FleetEvaluation> evaluations;  // every load simulated, in order
};
std::vector<BudgetLoad> LoadWithinBudget(const std::vector<Scenario>& candidates,
                                         double usd_per_hour, const SizingOptions& options,
                                         double precision_qps);

// The scenario with `replicas` replicas in its one deployment.
Scenario WithReplicas(const Scenario& s, uint32_t replicas);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SIZING_H_
