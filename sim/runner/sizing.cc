#include "sim/runner/sizing.h"

#include <algorithm>
#include <cmath>

#include "sim/runner/fleet_report.h"

namespace kvroute::sim {
namespace {

double MeanKvUtilization(const analysis::PointResult& r, const Scenario& s) {
  double sum = 0;
  uint32_t n = 0;
  for (const analysis::SeriesSample& b : r.series) {
    if (b.start_s < s.warmup_s || b.start_s >= s.duration_s || std::isnan(b.kv_utilization)) {
      continue;
    }
    sum += b.kv_utilization;
    ++n;
  }
  return n > 0 ? sum / n : std::nan("");
}

uint64_t PromptTokens(const analysis::PointResult& r, const Scenario& s) {
  uint64_t tokens = 0;
  for (const analysis::SeriesSample& b : r.series) {
    if (b.start_s >= s.warmup_s && b.start_s < s.duration_s) tokens += b.prompt_tokens;
  }
  return tokens;
}

}  // namespace

FleetEvaluation EvaluateFleet(const Scenario& candidate, size_t index, uint32_t replicas,
                              const SizingOptions& options) {
  const Scenario s = WithReplicas(candidate, replicas);
  std::vector<PointSpec> specs;
  for (uint64_t seed : s.SeedList()) specs.push_back({options.policy_index, options.qps, seed});
  std::vector<analysis::PointResult> results(specs.size());
  ThreadExecutor executor(options.jobs);
  executor.Run(s, specs, [&](size_t i, analysis::PointResult r) { results[i] = std::move(r); });

  FleetEvaluation e;
  e.candidate = index;
  e.replicas = replicas;
  e.cost = ScenarioFleetCost(s, replicas);
  e.met = true;
  for (size_t k = 0; k < s.slos.size(); ++k) {
    std::vector<double> values;
    for (const analysis::PointResult& r : results) values.push_back(r.slo_values[k]);
    const analysis::SeedStatistics stats = analysis::Summarize(values);
    // One seed has no interval: its value is the bound. A censored value
    // (+inf, requests left unfinished) or no measured request (NaN) fails.
    bool censored = false;
    for (double v : values) censored = censored || std::isinf(v);
    const double bound = censored ? INFINITY : values.size() > 1 ? stats.ci_high : stats.mean;
    e.slo.push_back(stats);
    e.slo_bound.push_back(bound);
    e.met = e.met && std::isfinite(bound) && s.slos[k].Met(bound);
  }
  // Measured window: warm-up to the end of arrivals.
  const double window_s = s.duration_s - s.warmup_s;
  for (const analysis::PointResult& r : results) {
    const double n = static_cast<double>(results.size());
    e.token_hit_rate += r.token_hit_rate / n;
    e.imbalance += r.imbalance / n;
    e.kv_utilization += MeanKvUtilization(r, s) / n;
    e.usd_per_million_prompt_tokens +=
        e.cost.Usd(window_s) / (static_cast<double>(PromptTokens(r, s)) / 1e6) / n;
    e.preemptions += static_cast<double>(r.preemptions) / n;
    e.in_system_per_replica += r.mean_in_system / replicas / n;
  }
  e.binding = BindingResource(e, s.scheduler.max_num_seqs);
  return e;
}

std::string BindingResource(const FleetEvaluation& e, int max_num_seqs) {
  if (e.preemptions > 0 || e.kv_utilization >= 0.9) return "KV";
  if (e.in_system_per_replica >= max_num_seqs) return "sequence slots";
  if (e.imbalance >= 1.5) return "imbalance";
  return "compute";
}

Scenario WithReplicas(const Scenario& s, uint32_t replicas) {
  Scenario copy = s;
  copy.deployments.at(0).replicas = replicas;
  return copy;
}

SizingReport SizeFleet(const std::vector<Scenario>& candidates, const SizingOptions& options) {
  SizingReport report;
  for (const Scenario& c : candidates) {
    report.kinds.push_back(
        {c.resolved_profile.name, ScenarioFleetCost(c, 1).UsdPerHour(), options.max_replicas});
  }
  report.search = analysis::FindCheapestFleet(
      report.kinds,
      [&](const analysis::Fleet& fleet) {
        // Fleets of one kind only (mixes=false below): the one nonzero count.
        size_t k = 0;
        while (fleet[k] == 0) ++k;
        report.evaluations.push_back(EvaluateFleet(candidates[k], k, fleet[k], options));
        return report.evaluations.back().met;
      },
      /*mixes=*/false);
  // The neighbours of each answer: one replica fewer (must fail if the policy
  // is monotone there) is known from the bisection; one more is simulated so
  // that a fleet that gets worse with size is seen.
  for (size_t k = 0; k < candidates.size(); ++k) {
    const uint32_t n = report.search.single_kind_minimum[k];
    if (n == 0 || n + 1 > options.max_replicas || FindEvaluation(report, k, n + 1)) continue;
    report.evaluations.push_back(EvaluateFleet(candidates[k], k, n + 1, options));
  }
  return report;
}

std::vector<BudgetLoad> LoadWithinBudget(const std::vector<Scenario>& candidates,
                                         double usd_per_hour, const SizingOptions& options,
                                         double precision_qps) {
  std::vector<BudgetLoad> rows;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const Scenario& c = candidates[k];
    BudgetLoad row;
    row.candidate = k;
    // A hair of slack so that a budget of exactly n replicas buys n.
    const double affordable =
        std::floor(usd_per_hour / ScenarioFleetCost(c, 1).UsdPerHour() + 1e-9);
    row.replicas = static_cast<uint32_t>(std::min(affordable, 100'000.0));
    if (row.replicas > 0) {
      const auto [lo_it, hi_it] = std::minmax_element(c.qps.begin(), c.qps.end());
      SizingOptions at = options;
      auto meets = [&](double qps) {
        at.qps = qps;
        row.evaluations.push_back(EvaluateFleet(c, k, row.replicas, at));
        return row.evaluations.back().met;
      };
      double lo = *lo_it, hi = *hi_it;
      if (meets(hi)) {
        row.meets_qps = hi;  // right-censored: at least the highest load
      } else if (!meets(lo)) {
        row.below_grid = true;
        row.misses_qps = lo;
      } else {
        // Invariant: lo meets, hi misses (load monotone, as SLO capacity assumes).
        while (hi - lo > precision_qps) {
          const double mid = (lo + hi) / 2;
          (meets(mid) ? lo : hi) = mid;
        }
        row.meets_qps = lo;
        row.misses_qps = hi;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

const FleetEvaluation* FindEvaluation(const SizingReport& report, size_t candidate,
                                      uint32_t replicas) {
  for (const FleetEvaluation& e : report.evaluations) {
    if (e.candidate == candidate && e.replicas == replicas) return &e;
  }
  return nullptr;
}

}  // namespace kvroute::sim
