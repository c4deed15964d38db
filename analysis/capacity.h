// SLO capacity over a load grid (DESIGN.md, "SLO capacity"): at one seed, the
// highest load such that it and every lower grid load meet the SLO. The true
// capacity lies between that load and the next load run, which failed: a grid
// (and bisection, BisectionPrecision) knows it only to that interval.
// Censoring is always reported: left-censored when even the lowest load fails
// (capacity below the grid), right-censored when the highest load passes
// (capacity at least that load, no upper bound known).
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
  // The highest load met with every load below it: the capacity is at least
  // this. 0 when left-censored.
  double qps = 0;
  // The lowest load that failed above `qps`: the capacity is below this.
  // +inf when right-censored.
  double upper_qps = 0;
  bool left_censored = false;
  bool right_censored = false;
};

// REQUIRES: outcomes non-empty; any order (sorted by qps inside).
Capacity SloCapacity(std::span<const LoadOutcome> outcomes);

// How narrow bisection makes a capacity's bracket (sweep.precision_qps and
// sweep.precision_share): at most `qps` wide, or `share` of its lower end,
// whichever is wider. Both 0: the grid only.
struct BisectionPrecision {
  double qps = 0;
  double share = 0;

  BisectionPrecision(double qps_ = 0, double share_ = 0)  // NOLINT: a width in QPS converts
      : qps(qps_), share(share_) {}
  bool enabled() const { return qps > 0 || share > 0; }
  double WidthAt(double low_qps) const { return qps > share * low_qps ? qps : share * low_qps; }
  bool Resolved(double low_qps, double high_qps) const {
    return enabled() && high_qps - low_qps <= WidthAt(low_qps);
  }
};

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
