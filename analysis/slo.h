// A service-level objective: a latency metric, a percentile and a threshold
// (DESIGN.md, "SLO capacity"), e.g. p99 TTFT <= 3.5 s as in seed 003 §5.1.
#ifndef KVROUTE_ANALYSIS_SLO_H_
#define KVROUTE_ANALYSIS_SLO_H_

#include <string>

namespace kvroute::analysis {

enum class LatencyMetric { kTtft, kTpot, kE2e };

const char* MetricName(LatencyMetric metric);  // "ttft", "tpot", "e2e"

struct Slo {
  LatencyMetric metric = LatencyMetric::kTtft;
  double percentile = 99;  // in (0, 100]
  double threshold_s = 3.5;

  // "p99 ttft <= 3.5s"
  std::string Label() const;
  bool Met(double value_s) const { return value_s <= threshold_s; }
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_SLO_H_
