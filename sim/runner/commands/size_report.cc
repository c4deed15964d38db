#include "sim/runner/commands/size_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/runner/fleet_report.h"
#include "sim/runner/text_table.h"

namespace kvroute::sim {
namespace {

std::string Fixed(double value, int digits) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string Bound(const FleetEvaluation* e, size_t slo) {
  return e == nullptr ? "not run" : Fixed(e->slo_bound[slo], 3) + (e->met ? " met" : " missed");
}

size_t KindsIn(const analysis::Fleet& fleet) {
  return static_cast<size_t>(
      std::count_if(fleet.begin(), fleet.end(), [](uint32_t n) { return n > 0; }));
}

// Of the fleets, the one whose bound on SLO `slo` is lowest (`lowest`) or
// highest: for the fleets one replica short of an answer, the one closest to
// meeting it; for those one more, the one furthest from it.
const FleetEvaluation* Extreme(const SizingReport& report,
                               const std::vector<analysis::Fleet>& fleets, size_t slo,
                               bool lowest) {
  const FleetEvaluation* pick = nullptr;
  for (const analysis::Fleet& f : fleets) {
    const FleetEvaluation* e = FindEvaluation(report, f);
    if (e == nullptr) return nullptr;
    if (pick == nullptr || (lowest ? e->slo_bound[slo] < pick->slo_bound[slo]
                                   : e->slo_bound[slo] > pick->slo_bound[slo])) {
      pick = e;
    }
  }
  return pick;
}

// The columns from the SLO bounds on of the row of `answer`, which was met.
void AnswerColumns(const Scenario& s, const SizingOptions& options, const SizingReport& report,
                   const FleetEvaluation& e, std::vector<std::string>* row) {
  const std::vector<analysis::Fleet> fewer = Neighbours(e.fleet, false, options.max_replicas);
  const std::vector<analysis::Fleet> more = Neighbours(e.fleet, true, options.max_replicas);
  for (size_t i = 0; i < s.slos.size(); ++i) row->push_back(Bound(&e, i));
  for (size_t i = 0; i < s.slos.size(); ++i) {
    row->push_back(fewer.empty() ? "-" : Bound(Extreme(report, fewer, i, true), i));
  }
  for (size_t i = 0; i < s.slos.size(); ++i) {
    row->push_back(more.empty() ? "not run" : Bound(Extreme(report, more, i, false), i));
  }
  row->push_back(Fixed(100 * e.token_hit_rate, 1) + "%");
  row->push_back(Fixed(100 * e.kv_utilization, 1) + "%");
  row->push_back(Fixed(e.imbalance, 2));
  // What runs out in the fleet one replica short of the answer (closest to
  // meeting the first SLO, for a mix); the answer itself when it is one replica.
  const FleetEvaluation* short_of = fewer.empty() ? &e : Extreme(report, fewer, 0, /*lowest=*/true);
  row->push_back(short_of ? short_of->binding : "-");
}

std::string Joined(const analysis::Fleet& fleet, const std::function<std::string(size_t)>& part) {
  std::string text;
  for (size_t k = 0; k < fleet.size(); ++k) {
    if (fleet[k] == 0) continue;
    text += (text.empty() ? "" : " + ") + part(k);
  }
  return text;
}

}  // namespace

std::string FleetName(const std::vector<analysis::FleetKind>& kinds, const analysis::Fleet& fleet) {
  std::string text;
  for (size_t k = 0; k < fleet.size(); ++k) {
    if (fleet[k] == 0) continue;
    text += (text.empty() ? "" : " + ") + std::to_string(fleet[k]) + " x " + kinds[k].name;
  }
  return text;
}

void PrintSizingReport(const std::vector<Scenario>& candidates,
                       const std::vector<std::string>& price_sources, const SizingOptions& options,
                       const SizingReport& report, std::ostream& out) {
  const Scenario& s = candidates[0];
  out << "sizing '" << s.name << "' at " << options.qps << " QPS, policy "
      << s.policies[options.policy_index].label << ", " << s.seeds
      << (s.seeds == 1 ? " seed (the value itself is held to each SLO)"
                       : " paired seeds (the upper 95% CI bound is held to each SLO)")
      << ", up to " << options.max_replicas << " replicas per profile"
      << (options.mixes && candidates.size() > 1 ? ", and mixes of them in one routing pool" : "")
      << "\n";
  const size_t kinds = candidates.size();
  const bool mix_won = report.search.found && KindsIn(report.search.cheapest) > 1;
  if (report.search.found) {
    const FleetEvaluation* e = FindEvaluation(report, report.search.cheapest);
    char text[128];
    std::snprintf(text, sizeof text, " = %llu GPUs, $%.2f/hour, $%.3f per million prompt tokens",
                  static_cast<unsigned long long>(e->gpus), e->usd_per_hour,
                  e->usd_per_million_prompt_tokens);
    out << "cheapest: " << FleetName(report.kinds, report.search.cheapest) << text
        << (mix_won ? " (one routing pool)" : "") << "\n";
    if (options.mixes && kinds > 1 && !mix_won) out << "no mix of the profiles is cheaper\n";
  } else {
    out << "no " << (options.mixes && kinds > 1 ? "fleet" : "candidate")
        << " meets the SLOs with up to " << options.max_replicas
        << " replicas per profile (raise --max-replicas)\n";
  }
  out << "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"profile", "GPU", "replicas", "GPUs", "$/hour", "$/M prompt tok"};
  for (const analysis::Slo& slo : s.slos) header.push_back(slo.Label());
  for (const analysis::Slo& slo : s.slos) header.push_back("one fewer: " + slo.Label());
  for (const analysis::Slo& slo : s.slos) header.push_back("one more: " + slo.Label());
  for (const char* h : {"hit rate", "KV use", "imbalance", "binding (one fewer)"}) {
    header.push_back(h);
  }
  rows.push_back(header);
  auto gpu = [&](size_t k) {
    return candidates[k].resolved_profile.gpu.name + " x" +
           std::to_string(candidates[k].resolved_profile.tensor_parallel);
  };
  // The cheapest mix first, then each candidate alone, cheapest first;
  // candidates that never meet last, in the order given.
  if (mix_won) {
    const analysis::Fleet& mix = report.search.cheapest;
    const FleetEvaluation& e = *FindEvaluation(report, mix);
    std::vector<std::string> row{Joined(mix, [&](size_t k) { return report.kinds[k].name; }),
                                 Joined(mix, gpu),
                                 Joined(mix, [&](size_t k) { return std::to_string(mix[k]); }),
                                 std::to_string(e.gpus),
                                 Fixed(e.usd_per_hour, 2),
                                 Fixed(e.usd_per_million_prompt_tokens, 3)};
    AnswerColumns(s, options, report, e, &row);
    rows.push_back(row);
  }
  std::vector<size_t> order(kinds);
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  auto price = [&](size_t k) {
    const uint32_t n = report.search.single_kind_minimum[k];
    return n > 0 ? n * report.kinds[k].usd_per_replica_hour : INFINITY;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return price(a) < price(b); });
  for (size_t k : order) {
    const uint32_t n = report.search.single_kind_minimum[k];
    std::vector<std::string> row{report.kinds[k].name, gpu(k)};
    if (n == 0) {
      row.insert(row.end(), {"> " + std::to_string(options.max_replicas), "-", "-", "-"});
      const FleetEvaluation* e = FindEvaluation(report, OneKind(kinds, k, options.max_replicas));
      for (size_t i = 0; i < s.slos.size(); ++i) row.push_back(Bound(e, i));
      for (size_t i = 0; i < 2 * s.slos.size(); ++i) row.push_back("-");
      row.push_back(e ? Fixed(100 * e->token_hit_rate, 1) + "%" : "-");
      row.push_back(e ? Fixed(100 * e->kv_utilization, 1) + "%" : "-");
      row.push_back(e ? Fixed(e->imbalance, 2) : "-");
      row.push_back(e ? e->binding : "-");
    } else {
      const FleetEvaluation& e = *FindEvaluation(report, OneKind(kinds, k, n));
      row.insert(row.end(), {std::to_string(n), std::to_string(e.gpus), Fixed(e.usd_per_hour, 2),
                             Fixed(e.usd_per_million_prompt_tokens, 3)});
      AnswerColumns(s, options, report, e, &row);
    }
    rows.push_back(row);
  }
  PrintTable(out, false, rows);
  for (size_t k : order) {
    out << "price of " << candidates[k].resolved_profile.gpu.name << ": $"
        << candidates[k].UsdPerGpuHour() << "/GPU-hour (" << price_sources[k] << ")\n";
  }
  out << report.evaluations.size() << " fleets simulated x " << s.seeds << " seeds";
  if (options.mixes && kinds > 1) {
    const auto mixes = std::count_if(report.evaluations.begin(), report.evaluations.end(),
                                     [](const FleetEvaluation& e) { return KindsIn(e.fleet) > 1; });
    out << " (" << mixes << " of them mixes; the search's bound: " << report.mixed_fleet_bound
        << " mixes and the neighbours)";
  }
  out << "\n";
}

// --budget --mixes: the best mix, or why there is none.
void PrintBudgetMix(const std::vector<Scenario>& candidates, double precision, const BudgetMix& mix,
                    std::ostream& out) {
  out << "mixes in one routing pool: " << mix.maximal_mixes
      << " that no replica can be added to within the budget\n";
  if (mix.best.fleet.empty()) {
    out << "no mix sustains more than the best profile alone (by " << precision
        << " QPS or more)\n";
    return;
  }
  std::vector<analysis::FleetKind> kinds;
  double usd = 0;
  uint64_t gpus = 0;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const analysis::FleetCost cost = ScenarioFleetCost(candidates[k], mix.best.fleet[k]);
    kinds.push_back({candidates[k].resolved_profile.name, 0, 0});
    usd += cost.UsdPerHour();
    gpus += cost.Gpus();
  }
  const BudgetLoad& b = mix.best;
  out << "best mix: " << FleetName(kinds, b.fleet) << " = " << gpus << " GPUs, $" << Fixed(usd, 2)
      << "/hour, sustains "
      << (b.misses_qps == 0
              ? ">= " + Fixed(b.meets_qps, 1)
              : Fixed(b.meets_qps, 1) + " QPS (misses at " + Fixed(b.misses_qps, 1) + ")")
      << "\n";
}

// --budget: per candidate, the replicas the budget buys and the load they sustain.
void PrintBudgetReport(const std::vector<Scenario>& candidates, const SizingOptions& options,
                       double budget, double precision, const std::vector<BudgetLoad>& rows,
                       const BudgetMix* mix, std::ostream& out) {
  const Scenario& s = candidates[0];
  out << "the load $" << budget << "/hour sustains with '" << s.name << "', policy "
      << s.policies[options.policy_index].label << ", " << s.seeds
      << (s.seeds == 1 ? " seed" : " paired seeds (the upper 95% CI bound is held to each SLO)")
      << ", between the sweep's lowest and highest load to within " << precision << " QPS\n\n";
  std::vector<std::vector<std::string>> table{
      {"profile", "GPU", "replicas", "GPUs", "$/hour", "sustained QPS", "$/M prompt tok"}};
  size_t simulated = 0;
  for (const BudgetLoad& row : rows) {
    const Scenario& c = candidates[row.candidate];
    const analysis::FleetCost cost = ScenarioFleetCost(c, row.replicas);
    std::string load, per_token = "-";
    if (row.replicas == 0) {
      load = "buys no replica";
    } else if (row.below_grid) {
      load = "< " + Fixed(row.misses_qps, 1);
    } else if (row.misses_qps == 0) {
      load = ">= " + Fixed(row.meets_qps, 1);
    } else {
      load = Fixed(row.meets_qps, 1) + " (misses at " + Fixed(row.misses_qps, 1) + ")";
    }
    // $ per million prompt tokens at the highest load that met.
    for (size_t i = 0; i < row.evaluations.size(); ++i) {
      if (row.evaluations[i].met)
        per_token = Fixed(row.evaluations[i].usd_per_million_prompt_tokens, 3);
    }
    simulated += row.evaluations.size();
    table.push_back(
        {c.resolved_profile.name,
         c.resolved_profile.gpu.name + " x" + std::to_string(c.resolved_profile.tensor_parallel),
         std::to_string(row.replicas), std::to_string(cost.Gpus()), Fixed(cost.UsdPerHour(), 2),
         load, per_token});
  }
  PrintTable(out, false, table);
  if (mix != nullptr) {
    simulated += mix->evaluations.size();
    PrintBudgetMix(candidates, precision, *mix, out);
  }
  out << simulated << " loads simulated x " << s.seeds << " seeds\n";
}

}  // namespace kvroute::sim
