#include "analysis/point_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "analysis/point_fields.h"

namespace kvroute::analysis {
namespace {

[[noreturn]] void Fail(const std::string& what) { throw PointCheckError(what); }

std::string N(uint64_t v) { return std::to_string(v); }

// a + b without wrapping: saturates at UINT64_MAX.
uint64_t Add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

void CheckFields(const PointTable& table, const PointResult& p) {
  for (size_t row = 0; row < table.rows(p); ++row) {
    for (const PointField& f : table.fields) {
      if (f.derived()) continue;
      std::string problem;
      switch (f.type) {
        case FieldType::kText:
          problem = CheckText(f.range, f.text(p, row));
          break;
        case FieldType::kCount:
          problem = CheckCount(f.range, f.count(p, row));
          break;
        case FieldType::kReal:
          problem = CheckReal(f.range, f.real(p, row));
          break;
      }
      if (problem.empty()) continue;
      std::string where = table.name == PointScalars().name
                              ? ""
                              : std::string(table.name) + " row " + N(row) + ": ";
      Fail(where + "field '" + std::string(f.name) + "' " + problem);
    }
  }
}

void CheckLatencyOrder(const char* metric, const LatencySummary& l) {
  if (std::isnan(l.p50) || std::isnan(l.p90) || std::isnan(l.p99) || std::isnan(l.max)) return;
  if (!(l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max)) {
    Fail(std::string(metric) + " percentiles are not in order (p50 <= p90 <= p99 <= max)");
  }
}

void CheckCounts(const PointResult& p) {
  uint64_t ended = Add(Add(p.completed, p.unfinished), Add(p.rejected, p.failed));
  if (ended > p.offered) {
    Fail("completed + unfinished + rejected + failed (" + N(ended) + ") exceeds offered (" +
         N(p.offered) + ")");
  }
  if (p.measured > p.offered) {
    Fail("measured (" + N(p.measured) + ") exceeds offered (" + N(p.offered) + ")");
  }
  uint64_t dispatched = 0;
  for (uint64_t n : p.replica_requests) dispatched = Add(dispatched, n);
  if (dispatched > Add(p.measured, p.retried)) {
    Fail("requests dispatched to replicas (" + N(dispatched) + ") exceed measured + retried (" +
         N(Add(p.measured, p.retried)) + ")");
  }
  if (!p.tenants.empty()) {
    uint64_t tenants = 0;
    for (const TenantLatency& t : p.tenants) tenants = Add(tenants, t.measured);
    if (tenants != p.measured) {
      Fail("the tenants' measured requests (" + N(tenants) + ") differ from measured (" +
           N(p.measured) + ")");
    }
  }
  uint64_t arrived = 0, finished = 0;
  for (const SeriesSample& s : p.series) {
    arrived = Add(arrived, s.arrived);
    finished = Add(finished, s.completed);
  }
  if (!p.series.empty() && (arrived != p.offered || finished != p.completed)) {
    Fail("the time series counts " + N(arrived) + " arrivals and " + N(finished) +
         " completions, the point " + N(p.offered) + " and " + N(p.completed));
  }
  for (size_t i = 1; i < p.series.size(); ++i) {
    if (!(p.series[i].start_s > p.series[i - 1].start_s)) {
      Fail("timeseries row " + N(i) + ": buckets are not in time order");
    }
  }
}

void CheckDeployments(const PointResult& p, size_t expected) {
  const size_t count = p.deployment_names.size();
  if (expected > 1 && count != expected) {
    Fail("names " + N(count) + " deployments, the scenario has " + N(expected));
  }
  if (expected == 1 && count != 0) Fail("names deployments, the scenario has one");
  for (size_t d = 0; d < count; ++d) {
    std::string problem = CheckText(FieldRange::kName, p.deployment_names[d]);
    if (!problem.empty()) Fail("deployment name " + N(d) + " " + problem);
  }
  for (size_t j = 0; j < p.fleet_changes.size(); ++j) {
    const FleetChange& c = p.fleet_changes[j];
    if (expected > 0 && c.deployment >= expected) {
      Fail("fleet_changes row " + N(j) + " names deployment " + N(c.deployment) +
           ", the scenario has " + N(expected));
    }
    if (c.serving > c.requested) {
      Fail("fleet_changes row " + N(j) + " has more replicas serving than requested");
    }
    if (j > 0 && c.at_s < p.fleet_changes[j - 1].at_s) {
      Fail("fleet_changes row " + N(j) + " is out of time order");
    }
  }
  if (p.deployment_series.empty()) return;
  // Each bucket holds every deployment's row, in deployment order.
  if (count == 0 || p.deployment_series.size() % count != 0) {
    Fail("deployment_series has " + N(p.deployment_series.size()) + " rows for " + N(count) +
         " deployments");
  }
  for (size_t j = 0; j < p.deployment_series.size(); ++j) {
    if (p.deployment_series[j].deployment != j % count) {
      Fail("deployment_series row " + N(j) + " is out of order");
    }
  }
}

// What a run of the scenario can produce, with room to spare: arrivals beyond
// ten times the mean count of the load over the run are not a random draw.
void CheckMagnitudes(const PointResult& p, const PointExpectations& e) {
  if (e.duration_s > 0) {
    const double most = 10 * p.qps * e.duration_s + 10'000;
    if (static_cast<double>(p.offered) > most) {
      Fail("offered (" + N(p.offered) + ") is implausible for " + std::to_string(p.qps) +
           " QPS over " + std::to_string(e.duration_s) + " s");
    }
    if (p.simulated_s > e.duration_s + e.drain_s + 1) {
      Fail("simulated_s (" + std::to_string(p.simulated_s) + ") is beyond the run's end");
    }
  }
  if (e.series_interval_s > 0 && e.duration_s > 0) {
    const double buckets = (e.duration_s + e.drain_s) / e.series_interval_s + 2;
    if (static_cast<double>(p.series.size()) > buckets) {
      Fail("has " + N(p.series.size()) + " time-series buckets, the run at most " +
           std::to_string(static_cast<uint64_t>(buckets)));
    }
  }
}

}  // namespace

std::string DescribePoint(const PointResult& p) {
  char qps[32];
  std::snprintf(qps, sizeof qps, "%g", p.qps);
  return "policy " + p.policy + ", " + qps + " QPS, seed " + N(p.seed);
}

void CheckPoint(const PointResult& p, const PointExpectations& e) {
  CheckFields(PointScalars(), p);
  for (const PointTable& table : PointRowTables()) CheckFields(table, p);
  if (p.slo_values.size() != e.slos) {
    Fail("has " + N(p.slo_values.size()) + " SLO values, expected " + N(e.slos));
  }
  for (size_t s = 0; s < p.slo_values.size(); ++s) {
    std::string problem = CheckReal(FieldRange::kLatency, p.slo_values[s]);
    if (!problem.empty()) Fail("SLO value " + N(s) + " " + problem);
  }
  if (e.replicas > 0 && p.replica_requests.size() != e.replicas) {
    Fail("has " + N(p.replica_requests.size()) + " replica counts, expected " + N(e.replicas));
  }
  if (!e.policies.empty() &&
      std::find(e.policies.begin(), e.policies.end(), p.policy) == e.policies.end()) {
    Fail("is of policy '" + p.policy + "', which the scenario lacks");
  }
  for (const auto& [name, value] : p.policy_stats) {
    std::string problem = CheckText(FieldRange::kName, name);
    if (!problem.empty()) Fail("a policy statistic's name " + problem);
    if (IsPointMetricColumn(name)) Fail("a policy statistic is named like a metric: " + name);
  }
  CheckLatencyOrder("ttft", p.ttft);
  CheckLatencyOrder("tpot", p.tpot);
  CheckLatencyOrder("e2e", p.e2e);
  CheckCounts(p);
  CheckDeployments(p, e.deployments);
  CheckMagnitudes(p, e);
}

}  // namespace kvroute::analysis
