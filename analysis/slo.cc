#include "analysis/slo.h"

#include <sstream>

namespace kvroute::analysis {

const char* MetricName(LatencyMetric metric) {
  switch (metric) {
    case LatencyMetric::kTtft:
      return "ttft";
    case LatencyMetric::kTpot:
      return "tpot";
    case LatencyMetric::kE2e:
      return "e2e";
  }
  return "?";
}

std::string Slo::Label() const {
  std::ostringstream out;
  out << "p" << percentile << " " << MetricName(metric) << " <= " << threshold_s << "s";
  return out.str();
}

}  // namespace kvroute::analysis
