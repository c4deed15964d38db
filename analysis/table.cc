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

// A number of QPS as short as it stays exact to 0.1: "60", "72.5".
std::string Qps(double v) {
  return FormatNumber("%.1f", v).ends_with(".0") ? FormatNumber("%.0f", v)
                                                 : FormatNumber("%.1f", v);
}

// Over the uncensored seeds: the mean and its 95% CI where bisection resolved
// the capacity, else the interval of the grid it lies in, "[60, 80)" (the
// means of the seeds' bounds). With no uncensored seed, the censored bound:
// "≥ 80" (above the grid), "< 10" (below it).
std::string FormatCapacity(const SummaryRow& row) {
  const SeedStatistics& c = row.capacity;
  if (row.uncensored() > 0) {
    if (row.quantised) {
      // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on a + chain here.
      std::string interval = "[";
      interval += Qps(c.mean);
      interval += ", ";
      interval += Qps(row.capacity_upper_mean_qps);
      interval += ")";
      return interval;
    }
    std::string text = FormatNumber("%.1f", c.mean);
    if (!std::isnan(c.ci_low)) {
      text += FormatNumber(" [%.1f", c.ci_low) + FormatNumber(", %.1f]", c.ci_high);
    }
    return text;
  }
  std::string text;
  if (row.left_censored) text = "< " + Qps(row.below_qps);
  if (row.right_censored) text += (text.empty() ? "≥ " : " or ≥ ") + Qps(row.at_least_qps);
  return text.empty() ? "-" : text;
}

std::string FormatRatio(const SummaryRow& row) {
  const SeedStatistics& r = row.ratio;
  if (r.n == 0) return "-";
  std::string text = FormatNumber("%.2f", r.mean);
  if (!std::isnan(r.ci_low))
    text += FormatNumber(" [%.2f", r.ci_low) + FormatNumber(", %.2f]", r.ci_high);
  return text;
}

std::string Seeds(uint32_t n) { return std::to_string(n) + (n == 1 ? " seed" : " seeds"); }

// The censored seeds with their bound, "2 seeds ≥ 80"; they are left out of
// the capacity's mean.
std::string FormatCensoring(const SummaryRow& row) {
  if (row.left_censored == 0 && row.right_censored == 0) return "none";
  std::string text;
  if (row.left_censored) text += Seeds(row.left_censored) + " < " + Qps(row.below_qps);
  if (row.right_censored) {
    if (!text.empty()) text += ", ";
    text += Seeds(row.right_censored) + " ≥ " + Qps(row.at_least_qps);
  }
  return text;
}

// `text` left-aligned in `width` characters (UTF-8 aware: "≥" is one).
std::string Pad(const std::string& text, size_t width) {
  size_t characters = 0;
  for (char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return characters >= width ? text : text + std::string(width - characters, ' ');
}

}  // namespace

namespace {

// Width of the policy column: the longest name (labels can be long), at least
// 14 so that the usual names line up as before.
int PolicyColumnWidth(const SweepResults& results) {
  size_t width = 14;
  for (const SummaryRow& row : results.summary) width = std::max(width, row.policy.size());
  for (const PointResult& p : results.points) width = std::max(width, p.policy.size());
  return static_cast<int>(width);
}

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
  const int width = PolicyColumnWidth(results);
  std::snprintf(line, sizeof line, "%-*s %16s %14s %14s %14s\n", width, "policy",
                "replica failures", "retried", "failed", "offered");
  out << line;
  for (size_t i = 0; i < policies.size(); ++i) {
    std::snprintf(
        line, sizeof line, "%-*s %16llu %14llu %14llu %14llu\n", width, policies[i].c_str(),
        static_cast<unsigned long long>(failures[i]), static_cast<unsigned long long>(retried[i]),
        static_cast<unsigned long long>(failed[i]), static_cast<unsigned long long>(offered[i]));
    out << line;
  }
}

// Per-tenant p99 TTFT and the fairness index at the reference load, averaged
// over seeds; shown when the points carry per-tenant latencies.
void PrintTenants(const SweepResults& results, std::ostream& out) {
  if (results.summary.empty()) return;
  double reference = results.summary.front().reference_qps;
  std::vector<std::string> tenants;
  for (const PointResult& p : results.points) {
    if (p.qps == reference && !p.tenants.empty()) {
      for (const TenantLatency& t : p.tenants) tenants.push_back(t.tenant);
      break;
    }
  }
  if (tenants.empty()) return;
  out << "\nPer-tenant p99 ttft at " << FormatNumber("%g", reference)
      << " QPS, mean over seeds (the tenants with the most traffic, then all others); fairness = "
         "Jain's index over every tenant's mean ttft\n";
  char cell[160];
  const int width = PolicyColumnWidth(results);
  std::snprintf(cell, sizeof cell, "%-*s", width, "policy");
  out << cell;
  for (const std::string& t : tenants) {
    std::snprintf(cell, sizeof cell, " %12s", (t == "other" ? t : "tenant " + t).c_str());
    out << cell;
  }
  out << "     fairness\n";
  for (const std::string& policy : PoliciesInSummary(results)) {
    std::vector<double> sums(tenants.size(), 0);
    double fairness = 0;
    size_t n = 0;
    for (const PointResult& p : results.points) {
      if (p.policy != policy || p.qps != reference || p.tenants.size() != tenants.size()) continue;
      for (size_t i = 0; i < tenants.size(); ++i) sums[i] += p.tenants[i].ttft_p99;
      fairness += p.tenant_fairness;
      ++n;
    }
    if (n == 0) continue;
    std::snprintf(cell, sizeof cell, "%-*s", width, policy.c_str());
    out << cell;
    for (double sum : sums) {
      std::snprintf(cell, sizeof cell, " %12s", FormatSeconds(sum / n).c_str());
      out << cell;
    }
    std::snprintf(cell, sizeof cell, " %12.3f\n", fairness / n);
    out << cell;
  }
}

}  // namespace

std::vector<std::string> PoliciesInSummary(const SweepResults& results) {
  std::vector<std::string> policies;
  for (const SummaryRow& row : results.summary) {
    if (std::find(policies.begin(), policies.end(), row.policy) == policies.end()) {
      policies.push_back(row.policy);
    }
  }
  return policies;
}

void PrintSummaryTables(const SweepResults& results, std::ostream& out) {
  for (uint32_t s = 0; s < results.slos.size(); ++s) {
    const Slo& slo = results.slos[s];
    std::string metric = FormatNumber("p%g ", slo.percentile) + MetricName(slo.metric);
    double reference = 0;
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index == s) reference = row.reference_qps;
    }
    out << "\nSLO " << slo.Label()
        << " — capacity in QPS over the uncensored seeds: mean [95% CI] when bisected, "
           "[low, high) between grid loads; hit rate and "
        << metric << " at " << FormatNumber("%g", reference) << " QPS";
    if (!results.baseline.empty()) {
      out << "; capacity / " << results.baseline << "'s, paired by seed";
    }
    out << "\n";
    char line[448];
    const size_t width = static_cast<size_t>(PolicyColumnWidth(results));
    out << Pad("policy", width) << " " << Pad("capacity", 24) << " " << Pad("censored seeds", 26);
    std::snprintf(line, sizeof line, " %9s %14s", "hit rate", metric.c_str());
    out << line;
    if (!results.baseline.empty()) out << "   vs " << results.baseline;
    out << "\n";
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index != s) continue;
      out << Pad(row.policy, width) << " " << Pad(FormatCapacity(row), 24) << " "
          << Pad(FormatCensoring(row), 26);
      std::snprintf(line, sizeof line, " %8.1f%% %14s", 100 * row.token_hit_rate,
                    FormatSeconds(row.slo_value).c_str());
      out << line;
      if (!results.baseline.empty()) out << "   " << FormatRatio(row);
      out << "\n";
    }
  }
  PrintTenants(results, out);
  PrintFailures(results, out);
}

}  // namespace kvroute::analysis

namespace kvroute::analysis {
namespace {

std::string CsvNumber(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return FormatNumber("%.6g", v);
}

// Mean tenant fairness over seeds at the reference load.
double FairnessAtReference(const SweepResults& results, const SummaryRow& row) {
  double sum = 0;
  size_t n = 0;
  for (const PointResult& p : results.points) {
    if (p.policy == row.policy && p.qps == row.reference_qps && !std::isnan(p.tenant_fairness)) {
      sum += p.tenant_fairness;
      ++n;
    }
  }
  return n ? sum / n : std::nan("");
}

}  // namespace

void PrintSummaryCsv(const SweepResults& results, std::ostream& out) {
  out << "slo,policy,seeds,uncensored_seeds,capacity_mean_qps,capacity_sd_qps,"
         "capacity_ci95_low_qps,capacity_ci95_high_qps,capacity_upper_mean_qps,quantised,"
         "left_censored_seeds,censored_below_qps,right_censored_seeds,censored_at_least_qps,"
         "baseline,ratio_mean,ratio_ci95_low,ratio_ci95_high,reference_qps,token_hit_rate,"
         "slo_value_s,tenant_fairness\n";
  for (const SummaryRow& row : results.summary) {
    out << results.slos[row.slo_index].Label() << "," << row.policy << "," << row.seeds << ","
        << row.uncensored() << "," << CsvNumber(row.capacity.mean) << ","
        << CsvNumber(row.capacity.sd) << "," << CsvNumber(row.capacity.ci_low) << ","
        << CsvNumber(row.capacity.ci_high) << "," << CsvNumber(row.capacity_upper_mean_qps) << ","
        << (row.quantised ? 1 : 0) << "," << row.left_censored << "," << CsvNumber(row.below_qps)
        << "," << row.right_censored << "," << CsvNumber(row.at_least_qps) << ","
        << results.baseline << "," << CsvNumber(row.ratio.mean) << ","
        << CsvNumber(row.ratio.ci_low) << "," << CsvNumber(row.ratio.ci_high) << ","
        << CsvNumber(row.reference_qps) << "," << CsvNumber(row.token_hit_rate) << ","
        << CsvNumber(row.slo_value) << "," << CsvNumber(FairnessAtReference(results, row)) << "\n";
  }
}

void PrintSummaryMarkdown(const SweepResults& results, std::ostream& out) {
  for (uint32_t s = 0; s < results.slos.size(); ++s) {
    out << "### SLO " << results.slos[s].Label() << "\n\n"
        << "Capacity over the uncensored seeds: mean [95% CI] when bisected, [low, high) between "
           "grid loads; censored seeds only bound it.\n\n"
        << "| policy | capacity (QPS) | censored seeds |";
    if (!results.baseline.empty()) out << " vs " << results.baseline << " |";
    out << " hit rate | SLO metric | tenant fairness |\n|---|---|---|";
    if (!results.baseline.empty()) out << "---|";
    out << "---|---|---|\n";
    for (const SummaryRow& row : results.summary) {
      if (row.slo_index != s) continue;
      out << "| " << row.policy << " | " << FormatCapacity(row) << " | " << FormatCensoring(row)
          << " |";
      if (!results.baseline.empty()) out << " " << FormatRatio(row) << " |";
      out << " " << FormatNumber("%.1f%%", 100 * row.token_hit_rate) << " | "
          << FormatSeconds(row.slo_value) << " | "
          << FormatNumber("%.3f", FairnessAtReference(results, row)) << " |\n";
    }
    out << "\n";
  }
}

}  // namespace kvroute::analysis
