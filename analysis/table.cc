#include "analysis/table.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace kvroute::analysis {
namespace {

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string FormatSeconds(double s) {
  if (std::isnan(s)) return "-";
  if (std::isinf(s)) return "unfinished";
  return Format("%.3f s", s);
}

std::string FormatCapacity(const SummaryRow& row) {
  const SeedStatistics& c = row.capacity;
  std::string text = Format("%.1f", c.mean);
  if (!std::isnan(c.ci_low)) {
    text += Format(" [%.1f", c.ci_low) + Format(", %.1f]", c.ci_high);
  }
  return text;
}

std::string FormatCensoring(const SummaryRow& row) {
  if (row.left_censored == 0 && row.right_censored == 0) return "none";
  std::string text;
  if (row.left_censored) text += std::to_string(row.left_censored) + " below grid";
  if (row.right_censored) {
    if (!text.empty()) text += ", ";
    text += std::to_string(row.right_censored) + " above grid";
  }
  return text;
}

}  // namespace

void PrintSummaryTables(const SweepResults& results, std::ostream& out) {
  for (uint32_t s = 0; s < results.slos.size(); ++s) {
    const Slo& slo = results.slos[s];
    std::string metric = Format("p%g ", slo.percentile) + MetricName(slo.metric);
    double reference = 0;
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index == s) reference = row.reference_qps;
    }
    out << "\nSLO " << slo.Label() << " — capacity in QPS, mean [95% CI] over seeds; hit rate and "
        << metric << " at " << Format("%g", reference) << " QPS\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-14s %-24s %-26s %9s %14s\n", "policy", "capacity",
                  "censored seeds", "hit rate", metric.c_str());
    out << line;
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index != s) continue;
      std::snprintf(line, sizeof line, "%-14s %-24s %-26s %8.1f%% %14s\n", row.policy.c_str(),
                    FormatCapacity(row).c_str(), FormatCensoring(row).c_str(),
                    100 * row.token_hit_rate, FormatSeconds(row.slo_value).c_str());
      out << line;
    }
  }
}

}  // namespace kvroute::analysis
