// Everything a sweep produced: its points, each (policy, seed, SLO) capacity
// and each (policy, SLO) summary over seeds (DESIGN.md, "Output").
//
// Censored capacities are never averaged: a summary's mean, standard
// deviation and confidence interval are over the seeds whose capacity is
// bracketed by a passing and a failing load, and the censored seeds are
// counted with the bound they give (capacity < the lowest load, or >= the
// highest). Where the bracket is wider than sweep.precision_qps (a grid without
// bisection) the summary is marked quantised and printed as an interval.
#ifndef KVROUTE_ANALYSIS_SWEEP_RESULTS_H_
#define KVROUTE_ANALYSIS_SWEEP_RESULTS_H_

#include <cmath>
#include <string>
#include <vector>

#include "analysis/capacity.h"
#include "analysis/point_metrics.h"
#include "analysis/slo.h"

namespace kvroute::analysis {

struct CapacityRow {
  std::string policy;
  uint64_t seed = 0;
  uint32_t slo_index = 0;
  Capacity capacity;
};

struct SummaryRow {
  std::string policy;
  uint32_t slo_index = 0;
  uint32_t seeds = 0;           // seeds with a capacity
  uint32_t left_censored = 0;   // seeds whose capacity is below the lowest load
  uint32_t right_censored = 0;  // seeds whose capacity is at least the highest load
  // Over the uncensored seeds (capacity.n of them): each seed's highest
  // passing load. NaN when every seed is censored.
  SeedStatistics capacity{.n = 0, .mean = NAN, .sd = NAN, .ci_low = NAN, .ci_high = NAN};
  double capacity_upper_mean_qps = NAN;  // mean of the same seeds' lowest failing loads
  // Some uncensored seed's bracket is wider than the sweep's precision: the
  // capacity is known only to an interval of the grid.
  bool quantised = false;
  double below_qps = NAN;     // left-censored seeds: capacity < this (the lowest load)
  double at_least_qps = NAN;  // right-censored seeds: capacity >= this (the highest load)
  double reference_qps = 0;   // the common load of the next two columns
  double token_hit_rate = 0;  // mean over seeds at reference_qps
  double slo_value = 0;       // mean over seeds of the SLO metric at reference_qps
  // Capacity / the baseline policy's capacity at the same seed, over the seeds
  // where neither is censored; n = 0 without a baseline or such seeds.
  SeedStatistics ratio{.n = 0, .mean = NAN, .sd = NAN, .ci_low = NAN, .ci_high = NAN};

  uint32_t uncensored() const { return capacity.n; }
};

struct SweepResults {
  std::vector<Slo> slos;
  std::string baseline;             // the policy capacities are compared with; empty: none
  std::vector<PointResult> points;  // policy-major, then load, then seed
  std::vector<CapacityRow> capacity;
  std::vector<SummaryRow> summary;
};

// Derives `capacity` and `summary` from `points`. `reference_qps` must be one
// of the grid loads; a capacity bracket that `precision` resolves counts as
// resolved (none: the grid was not refined, every bracket is quantised).
// REQUIRES: every point has one SLO value per SLO.
void ComputeCapacityAndSummary(double reference_qps, BisectionPrecision precision,
                               SweepResults* results);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_SWEEP_RESULTS_H_
