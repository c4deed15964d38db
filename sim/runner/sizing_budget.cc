// The inverse of sizing (`kvroute size --budget`): the load a budget
// sustains, per candidate alone and, with --mixes, with the best mix.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "sim/runner/fleet_report.h"
#include "sim/runner/sizing.h"
#include "sim/runner/work_estimate.h"

namespace kvroute::sim {
namespace {

// A hair of slack so that a budget of exactly n replicas buys n.
constexpr double kSlackUsd = 1e-9;

// Bisects the highest load `fleet` sustains in [lo, hi] to within
// `precision`, recording every evaluation in `row`. With `lo_known`, lo is
// taken to meet already (it is not simulated).
void Bisect(const std::vector<Scenario>& candidates, const SizingOptions& options, double lo,
            double hi, bool lo_known, double precision, BudgetLoad* row) {
  SizingOptions at = options;
  auto meets = [&](double qps) {
    at.qps = qps;
    row->evaluations.push_back(EvaluateFleet(candidates, row->fleet, at));
    return row->evaluations.back().met;
  };
  if (meets(hi)) {
    row->meets_qps = hi;  // right-censored: at least the highest load
    return;
  }
  if (!lo_known && !meets(lo)) {
    row->below_grid = true;
    row->misses_qps = lo;
    return;
  }
  // Invariant: lo meets, hi misses (load monotone, as SLO capacity assumes).
  while (hi - lo > precision) {
    const double mid = (lo + hi) / 2;
    (meets(mid) ? lo : hi) = mid;
  }
  row->meets_qps = lo;
  row->misses_qps = hi;
}

}  // namespace

std::vector<BudgetLoad> LoadWithinBudget(const std::vector<Scenario>& candidates,
                                         double usd_per_hour, const SizingOptions& options,
                                         double precision_qps) {
  std::vector<BudgetLoad> rows;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const Scenario& c = candidates[k];
    BudgetLoad row;
    row.candidate = k;
    const double affordable =
        std::floor(usd_per_hour / ScenarioFleetCost(c, 1).UsdPerHour() + kSlackUsd);
    row.replicas = static_cast<uint32_t>(std::min(affordable, 100'000.0));
    if (row.replicas > 0) {
      row.fleet = OneKind(candidates.size(), k, row.replicas);
      const auto [lo, hi] = std::minmax_element(c.qps.begin(), c.qps.end());
      Bisect(candidates, options, *lo, *hi, false, precision_qps, &row);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<analysis::Fleet> MaximalMixes(const std::vector<double>& usd_per_replica,
                                          double usd_per_hour, uint32_t max_replicas) {
  const size_t kinds = usd_per_replica.size();
  std::vector<analysis::Fleet> mixes;
  analysis::Fleet fleet(kinds, 0);
  // Every count of each kind within the budget, depth first.
  std::function<void(size_t, double)> fill = [&](size_t k, double left) {
    if (k == kinds) {
      size_t used = 0;
      bool maximal = true;
      for (size_t j = 0; j < kinds; ++j) {
        used += fleet[j] > 0 ? 1 : 0;
        if (fleet[j] < max_replicas && usd_per_replica[j] <= left + kSlackUsd) maximal = false;
      }
      if (used >= 2 && maximal) mixes.push_back(fleet);
      return;
    }
    const double most = std::floor(left / usd_per_replica[k] + kSlackUsd);
    const auto top = static_cast<uint32_t>(std::min<double>(most, max_replicas));
    for (uint32_t n = 0; n <= top; ++n) {
      fleet[k] = n;
      fill(k + 1, left - n * usd_per_replica[k]);
    }
    fleet[k] = 0;
  };
  fill(0, usd_per_hour);
  return mixes;
}

BudgetMix MixWithinBudget(const std::vector<Scenario>& candidates, double usd_per_hour,
                          const SizingOptions& options, double precision_qps,
                          const std::vector<BudgetLoad>& singles) {
  std::vector<double> prices;
  for (const Scenario& c : candidates) prices.push_back(ScenarioFleetCost(c, 1).UsdPerHour());
  const std::vector<analysis::Fleet> mixes =
      MaximalMixes(prices, usd_per_hour, options.max_replicas);
  if (mixes.size() > kMaxMixedFleets && !options.ignore_limits) {
    throw std::runtime_error("--mixes: the budget buys " + std::to_string(mixes.size()) +
                             " mixes that no replica can be added to, more than " +
                             std::to_string(kMaxMixedFleets) +
                             " to simulate; lower --max-replicas or give --ignore-limits if "
                             "you mean it (docs/PLANNING.md, \"Mixes of profiles\")");
  }
  BudgetMix result;
  result.maximal_mixes = mixes.size();
  if (mixes.empty()) return result;
  const Scenario& s = candidates[0];
  const auto [grid_lo, grid_hi] = std::minmax_element(s.qps.begin(), s.qps.end());
  if (!options.ignore_limits) {
    // The mix of most replicas at the highest load bounds a point's work.
    const analysis::Fleet& largest = *std::max_element(
        mixes.begin(), mixes.end(), [](const analysis::Fleet& a, const analysis::Fleet& b) {
          return analysis::ReplicasIn(a) < analysis::ReplicasIn(b);
        });
    const Scenario scenario = FleetScenario(candidates, largest);
    CheckWorkLimits(scenario, EstimatePointWork(scenario, *grid_hi),
                    std::min<unsigned>(options.jobs, scenario.seeds));
  }
  // The load to beat: the best single kind's (the grid's lowest if none met).
  double best = *grid_lo;
  bool best_met = false;
  for (const BudgetLoad& row : singles) {
    if (row.replicas > 0 && !row.below_grid && row.meets_qps >= best) {
      best = row.meets_qps;
      best_met = true;
    }
  }
  for (const analysis::Fleet& mix : mixes) {
    if (best_met && best >= *grid_hi) break;  // nothing beats it within the grid
    BudgetLoad row;
    row.fleet = mix;
    row.replicas = static_cast<uint32_t>(analysis::ReplicasIn(mix));
    // A mix is worth bisecting only if it meets a load above the best so far
    // by more than the precision (or, with nothing met yet, the lowest load).
    const double above = best_met ? std::min(best + precision_qps, *grid_hi) : best;
    SizingOptions at = options;
    at.qps = above;
    row.evaluations.push_back(EvaluateFleet(candidates, mix, at));
    const bool better = row.evaluations.back().met;
    if (better) Bisect(candidates, options, above, *grid_hi, true, precision_qps, &row);
    result.evaluations.insert(result.evaluations.end(), row.evaluations.begin(),
                              row.evaluations.end());
    if (better) {
      best = row.meets_qps;
      best_met = true;
      result.best = std::move(row);
    }
  }
  return result;
}

}  // namespace kvroute::sim
