// SLO capacity over a load grid (DESIGN.md, "SLO capacity"): at one seed, the
// highest load such that it and every lower grid load meet the SLO. Censoring
// is always reported: left-censored when even the lowest load fails (capacity
// 0, "below the grid"), right-censored when the highest load passes (capacity
// is at least that load).
#ifndef KVROUTE_ANALYSIS_CAPACITY_H_
#define KVROUTE_ANALYSIS_CAPACITY_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kvroute::analysis {

struct LoadOutcome {
  double qps;
  bool met;
};

struct Capacity {
  double qps = 0;
  bool left_censored = false;
  bool right_censored = false;
};

// REQUIRES: outcomes non-empty; any order (sorted by qps inside).
Capacity SloCapacity(std::span<const LoadOutcome> outcomes);

// Mean, sample standard deviation and a two-sided 95% Student-t confidence
// interval of the mean over paired seeds. With one value sd and CI are NaN.
struct SeedStatistics {
  uint32_t n = 0;
  double mean = 0;
  double sd = 0;
  double ci_low = 0;
  double ci_high = 0;
};

SeedStatistics Summarize(std::span<const double> values);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_CAPACITY_H_
