#include "analysis/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/format_number.h"

namespace kvroute::analysis {
namespace {

std::string FormatSeconds(double s) {
  if (std::isnan(s)) return "-";
  if (std::isinf(s)) return "unfinished";
  return FormatNumber("%.3f s", s);
}

std::string FormatCapacity(const SummaryRow& row) {
  const SeedStatistics& c = row.capacity;
  std::string text = FormatNumber("%.1f", c.mean);
  if (!std::isnan(c.ci_low)) {
    text += FormatNumber(" [%.1f", c.ci_low) + FormatNumber(", %.1f]", c.ci_high);
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

namespace {

// Failures are rare and scenario-specific: a section appears only when a
// replica failed in some point.
void PrintFailures(const SweepResults& results, std::ostream& out) {
  std::vector<std::string> policies;
  std::vector<uint64_t> failures, retried, failed, offered;
  for (const PointResult& p : results.points) {
    auto it = std::find(policies.begin(), policies.end(), p.policy);
    size_t i = static_cast<size_t>(it - policies.begin());
    if (it == policies.end()) {
      policies.push_back(p.policy);
      failures.push_back(0), retried.push_back(0), failed.push_back(0), offered.push_back(0);
    }
    failures[i] += p.replica_failures;
    retried[i] += p.retried;
    failed[i] += p.failed;
    offered[i] += p.offered;
  }
  uint64_t any = 0;
  for (uint64_t f : failures) any += f;
  if (any == 0) return;
  out << "\nReplica failures, summed over all points\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %16s %14s %14s %14s\n", "policy", "replica failures",
                "retried", "failed", "offered");
  out << line;
  for (size_t i = 0; i < policies.size(); ++i) {
    std::snprintf(
        line, sizeof line, "%-14s %16llu %14llu %14llu %14llu\n", policies[i].c_str(),
        static_cast<unsigned long long>(failures[i]), static_cast<unsigned long long>(retried[i]),
        static_cast<unsigned long long>(failed[i]), static_cast<unsigned long long>(offered[i]));
    out << line;
  }
}

}  // namespace

void PrintSummaryTables(const SweepResults& results, std::ostream& out) {
  for (uint32_t s = 0; s < results.slos.size(); ++s) {
    const Slo& slo = results.slos[s];
    std::string metric = FormatNumber("p%g ", slo.percentile) + MetricName(slo.metric);
    double reference = 0;
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index == s) reference = row.reference_qps;
    }
    out << "\nSLO " << slo.Label() << " — capacity in QPS, mean [95% CI] over seeds; hit rate and "
        << metric << " at " << FormatNumber("%g", reference) << " QPS\n";
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
  PrintFailures(results, out);
}

}  // namespace kvroute::analysis
