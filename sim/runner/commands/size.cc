// `kvroute size`: the cheapest fleet that meets a scenario's SLOs at a target
// load, over candidate profiles, in replicas, GPUs and dollars
// (sim/runner/sizing.h says how a fleet is judged and searched).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "sim/core/did_you_mean.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/sizing.h"
#include "sim/runner/text_table.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// The scenario once per candidate (--profile), each loaded with the profile
// set as if by --set cluster.profile=VALUE, so that the engine's per-GPU
// defaults follow the candidate.
std::vector<Scenario> LoadCandidates(const po::variables_map& vm) {
  const Scenario given = LoadScenarioArgument(vm);
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  std::vector<Scenario> candidates;
  if (names.empty()) candidates.push_back(given);
  for (const std::string& name : names) {
    if (name.empty()) throw UsageError("--profile: the value is empty");
    std::vector<std::string> overrides;
    if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
    overrides.push_back("cluster.profile=" + name);
    try {
      candidates.push_back(
          vm.count("scenario")
              ? LoadScenarioFile(vm["scenario"].as<std::string>(), overrides)
              : LoadScenarioText(QuickstartYaml(), "built-in quickstart", overrides));
    } catch (const ScenarioError& e) {
      throw UsageError("--profile '" + name + "': " + e.what());
    }
  }
  for (const Scenario& c : candidates) {
    if (c.deployments.size() != 1) {
      throw UsageError("kvroute size sizes a cluster of one deployment; scenario '" + c.name +
                       "' has " + std::to_string(c.deployments.size()));
    }
    if (c.MixedProfiles()) {
      throw UsageError("kvroute size varies cluster.profile; scenario '" + c.name +
                       "' gives its deployment a profile of its own: move it to cluster.profile "
                       "or pass it with --profile");
    }
    if (!c.failures.empty()) {
      throw UsageError(
          "kvroute size needs a scenario without failures (they name replicas by "
          "index, and the search changes the count)");
    }
    if (!(c.UsdPerGpuHour() > 0)) {
      throw UsageError("profile '" + c.resolved_profile.name + "': GPU '" +
                       c.resolved_profile.gpu.name +
                       "' has no price; give --set cluster.usd_per_gpu_hour=USD");
    }
  }
  return candidates;
}

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

void PrintReport(const std::vector<Scenario>& candidates, const SizingOptions& options,
                 const SizingReport& report, std::ostream& out) {
  const Scenario& s = candidates[0];
  out << "sizing '" << s.name << "' at " << options.qps << " QPS, policy "
      << s.policies[options.policy_index].label << ", " << s.seeds
      << (s.seeds == 1 ? " seed (the value itself is held to each SLO)"
                       : " paired seeds (the upper 95% CI bound is held to each SLO)")
      << ", up to " << options.max_replicas << " replicas per profile\n";
  if (report.search.found) {
    size_t k = 0;
    while (report.search.cheapest[k] == 0) ++k;
    const FleetEvaluation* e = FindEvaluation(report, k, report.search.cheapest[k]);
    char text[256];
    std::snprintf(text, sizeof text,
                  "cheapest: %u x %s = %llu GPUs, $%.2f/hour, $%.3f per million prompt tokens\n",
                  e->replicas, report.kinds[k].name.c_str(),
                  static_cast<unsigned long long>(e->cost.Gpus()), e->cost.UsdPerHour(),
                  e->usd_per_million_prompt_tokens);
    out << text;
  } else {
    out << "no candidate meets the SLOs with up to " << options.max_replicas
        << " replicas (raise --max-replicas)\n";
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
  std::vector<size_t> order(candidates.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  // Cheapest first; candidates that never meet last, in the order given.
  auto price = [&](size_t k) {
    const uint32_t n = report.search.single_kind_minimum[k];
    return n > 0 ? n * report.kinds[k].usd_per_replica_hour : INFINITY;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return price(a) < price(b); });
  for (size_t k : order) {
    const Scenario& c = candidates[k];
    const uint32_t n = report.search.single_kind_minimum[k];
    std::vector<std::string> row{
        report.kinds[k].name,
        c.resolved_profile.gpu.name + " x" + std::to_string(c.resolved_profile.tensor_parallel)};
    const FleetEvaluation* e = n > 0 ? FindEvaluation(report, k, n) : nullptr;
    if (e == nullptr) {
      row.insert(row.end(), {"> " + std::to_string(options.max_replicas), "-", "-", "-"});
      e = FindEvaluation(report, k, options.max_replicas);
      for (size_t i = 0; i < s.slos.size(); ++i) row.push_back(Bound(e, i));
      for (size_t i = 0; i < 2 * s.slos.size(); ++i) row.push_back("-");
    } else {
      row.insert(row.end(),
                 {std::to_string(n), std::to_string(e->cost.Gpus()), Fixed(e->cost.UsdPerHour(), 2),
                  Fixed(e->usd_per_million_prompt_tokens, 3)});
      const FleetEvaluation* fewer = n > 1 ? FindEvaluation(report, k, n - 1) : nullptr;
      const FleetEvaluation* more = FindEvaluation(report, k, n + 1);
      for (size_t i = 0; i < s.slos.size(); ++i) row.push_back(Bound(e, i));
      for (size_t i = 0; i < s.slos.size(); ++i) row.push_back(n > 1 ? Bound(fewer, i) : "-");
      for (size_t i = 0; i < s.slos.size(); ++i) row.push_back(Bound(more, i));
    }
    row.push_back(e ? Fixed(100 * e->token_hit_rate, 1) + "%" : "-");
    row.push_back(e ? Fixed(100 * e->kv_utilization, 1) + "%" : "-");
    row.push_back(e ? Fixed(e->imbalance, 2) : "-");
    // What runs out in the fleet one replica short of the answer (the answer
    // itself when it is one replica, or the largest fleet when none meets).
    const FleetEvaluation* short_of = n > 1 ? FindEvaluation(report, k, n - 1) : e;
    row.push_back(short_of ? short_of->binding : "-");
    rows.push_back(row);
  }
  PrintTable(out, false, rows);
  for (size_t k : order) {
    out << "price of " << candidates[k].resolved_profile.gpu.name << ": $"
        << candidates[k].UsdPerGpuHour() << "/GPU-hour (" << PriceSource(candidates[k]) << ")\n";
  }
  out << report.evaluations.size() << " fleets simulated x " << s.seeds << " seeds\n";
}

// --budget: per candidate, the replicas the budget buys and the load they sustain.
void PrintBudget(const std::vector<Scenario>& candidates, const SizingOptions& options,
                 double budget, double precision, const std::vector<BudgetLoad>& rows,
                 std::ostream& out) {
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
  out << simulated << " loads simulated x " << s.seeds << " seeds\n";
}

int Size(const po::variables_map& vm, const CommandIo& io) {
  if (Given(vm, "qps") == Given(vm, "budget")) {
    throw UsageError(
        "give either --qps (the cheapest fleet for a load) or --budget (the load a "
        "budget sustains)");
  }
  const std::vector<Scenario> candidates = LoadCandidates(vm);
  SizingOptions options;
  options.max_replicas = static_cast<uint32_t>(vm["max-replicas"].as<uint64_t>());
  options.jobs = static_cast<unsigned>(vm["jobs"].as<uint64_t>());
  options.policy_index =
      Given(vm, "policy") ? PolicyIndex(candidates[0], vm["policy"].as<std::string>(), "--policy")
                          : 0;
  if (Given(vm, "budget")) {
    const double budget = vm["budget"].as<double>();
    const Scenario& s = candidates[0];
    const double highest = *std::max_element(s.qps.begin(), s.qps.end());
    const double precision = s.precision_qps > 0 ? s.precision_qps : highest / 100;
    for (const Scenario& c : candidates) {
      const double per_replica = ScenarioFleetCost(c, 1).UsdPerHour();
      const auto replicas = static_cast<uint32_t>(std::min(budget / per_replica, 100'000.0));
      CheckScenarioWork(WithReplicas(c, std::max(1u, replicas)), vm,
                        std::min<unsigned>(options.jobs, c.seeds), highest);
    }
    PrintBudget(candidates, options, budget, precision,
                LoadWithinBudget(candidates, budget, options, precision), io.out);
    return 0;
  }
  options.qps = vm["qps"].as<double>();
  for (const Scenario& c : candidates) {
    CheckScenarioWork(WithReplicas(c, options.max_replicas), vm,
                      std::min<unsigned>(options.jobs, c.seeds), options.qps);
  }
  const SizingReport report = SizeFleet(candidates, options);
  PrintReport(candidates, options, report, io.out);
  return report.search.found ? 0 : 3;
}

}  // namespace

Command SizeCommandDefinition() {
  return {"size",
          "find the cheapest fleet (replicas of one of several profiles) that meets the "
          "scenario's SLOs at a load, in GPUs and dollars; or the load a budget sustains",
          {ScenarioArgument(false)},
          [](OptionList& o) {
            AddOverrideOption(o);
            o.RealNumber("qps", "X",
                         "the target load, requests per second: find the cheapest fleet for it", 0,
                         1e9, true)
                .RealNumber("budget", "USD",
                            "dollars per hour: find the load the fleet it buys sustains (between "
                            "the sweep's lowest and highest load)",
                            0, 1e9, true)
                .Repeated("profile", "PROFILE",
                          "a candidate, as cluster.profile takes it: a built-in name, a .yaml "
                          "file or {model, gpu, tensor_parallel, weight_dtype, kv_dtype}; "
                          "default: the scenario's profile")
                .Text("policy", "LABEL", "the scenario's policy to route with; default: its first")
                .WholeNumber("max-replicas", "N", "the most replicas of a profile to try", 1,
                             100'000, 64)
                .WholeNumber("jobs", "N", "seeds simulated at once", 1, 4096,
                             std::max(1u, std::thread::hardware_concurrency()), "all cores");
            AddLimitOption(o);
          },
          Size};
}

}  // namespace kvroute::sim
