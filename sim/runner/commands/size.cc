// `kvroute size`: the cheapest fleet that meets a scenario's SLOs at a target
// load, over candidate profiles (and with --mixes, fleets mixing them), in
// replicas, GPUs and dollars (sim/runner/sizing.h says how a fleet is judged
// and searched; size_report.cc prints it).
#include <algorithm>
#include <stdexcept>
#include <thread>

#include "sim/core/did_you_mean.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/commands/size_report.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/sizing.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// A scenario of several deployments, or of one with a profile of its own:
// its kinds are the candidates, each deployment's profile at its price (the
// same profile at the same price once), each as one deployment of the
// scenario's first; the mixes put them in one routing pool.
std::vector<Scenario> DeploymentKinds(const Scenario& given,
                                      std::vector<std::string>* price_sources) {
  std::vector<Scenario> kinds;
  for (size_t d = 0; d < given.deployments.size(); ++d) {
    const DeploymentSpec& spec = given.deployments[d];
    const std::string named = "deployment '" + spec.name + "' ";
    if (spec.role != DeploymentRole::kServe) {
      throw UsageError(named +
                       "serves one stage of cluster.disaggregation; kvroute size sizes "
                       "deployments that serve whole requests");
    }
    if (given.deployments.size() > 1 && spec.autoscale) {
      throw UsageError(named +
                       "autoscales; kvroute size sizes fixed fleets of several "
                       "deployments (remove its autoscale)");
    }
    if (given.deployments.size() > 1 && spec.policy) {
      throw UsageError(named +
                       "names its own policy; kvroute size routes every fleet of "
                       "several deployments with --policy (remove the deployment's policy)");
    }
    Scenario c = given;
    c.resolved_profile = given.ProfileOf(d);
    c.scheduler = given.SchedulerOf(d);
    if (spec.profile) {
      c.profile_inline = spec.profile_ref.empty();
      c.profile = c.profile_inline ? c.resolved_profile.name : spec.profile_ref;
      c.usd_per_gpu_hour = spec.usd_per_gpu_hour;  // 0: its GPU file's
    } else if (spec.usd_per_gpu_hour > 0) {
      c.usd_per_gpu_hour = spec.usd_per_gpu_hour;
    }
    DeploymentSpec one = given.deployments[0];
    one.replicas = spec.replicas;
    one.profile.reset();
    one.profile_ref.clear();
    one.usd_per_gpu_hour = 0;
    c.deployments = {one};
    const bool seen = std::any_of(kinds.begin(), kinds.end(), [&](const Scenario& k) {
      return k.resolved_profile.name == c.resolved_profile.name &&
             k.UsdPerGpuHour() == c.UsdPerGpuHour();
    });
    if (seen) continue;
    price_sources->push_back(spec.usd_per_gpu_hour > 0
                                 ? "deployment '" + spec.name + "': usd_per_gpu_hour"
                                 : PriceSource(c));
    kinds.push_back(std::move(c));
  }
  return kinds;
}

// The scenario once per candidate (--profile), each loaded with the profile
// set as if by --set cluster.profile=VALUE, so that the engine's per-GPU
// defaults follow the candidate; without --profile, the scenario's own
// profile, or its deployments' kinds.
// `price_sources`: where each candidate's price comes from.
std::vector<Scenario> LoadCandidates(const po::variables_map& vm,
                                     std::vector<std::string>* price_sources) {
  const Scenario given = LoadScenarioArgument(vm);
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  const bool kinds_given = given.deployments.size() > 1 || given.MixedProfiles();
  if (kinds_given && !names.empty()) {
    throw UsageError("--profile: scenario '" + given.name + "' has " +
                     std::to_string(given.deployments.size()) +
                     " deployment(s) with profiles of their own, and kvroute size takes its "
                     "candidates from them; drop --profile, or give one deployment with --set "
                     "'cluster.deployments=[{name: main, replicas: 1}]'");
  }
  std::vector<Scenario> candidates;
  if (kinds_given) {
    candidates = DeploymentKinds(given, price_sources);
  } else if (names.empty()) {
    candidates.push_back(given);
  }
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
    for (size_t k = 0; k + 1 < candidates.size(); ++k) {
      if (candidates[k].resolved_profile.name == candidates.back().resolved_profile.name) {
        throw UsageError("--profile '" + name + "': names profile '" +
                         candidates[k].resolved_profile.name + "' again (given as '" + names[k] +
                         "')");
      }
    }
  }
  if (price_sources->empty()) {
    for (const Scenario& c : candidates) price_sources->push_back(PriceSource(c));
  }
  for (const Scenario& c : candidates) {
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

int Size(const po::variables_map& vm, const CommandIo& io) {
  if (Given(vm, "qps") == Given(vm, "budget")) {
    throw UsageError(
        "give either --qps (the cheapest fleet for a load) or --budget (the load a "
        "budget sustains)");
  }
  const bool mixes = vm["mixes"].as<bool>();
  std::vector<std::string> price_sources;
  const std::vector<Scenario> candidates = LoadCandidates(vm, &price_sources);
  if (mixes && candidates.size() < 2) {
    throw UsageError(
        "--mixes needs two or more candidates to mix: give --profile twice or more, or a "
        "scenario whose deployments run different profiles");
  }
  if (mixes) {
    try {
      CheckMixable(candidates);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--mixes: ") + e.what());
    }
  }
  SizingOptions options;
  options.mixes = mixes;
  options.ignore_limits = vm["ignore-limits"].as<bool>();
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
    const std::vector<BudgetLoad> rows = LoadWithinBudget(candidates, budget, options, precision);
    BudgetMix mix;
    if (mixes) mix = MixWithinBudget(candidates, budget, options, precision, rows);
    PrintBudgetReport(candidates, options, budget, precision, rows, mixes ? &mix : nullptr, io.out);
    return 0;
  }
  options.qps = vm["qps"].as<double>();
  for (const Scenario& c : candidates) {
    CheckScenarioWork(WithReplicas(c, options.max_replicas), vm,
                      std::min<unsigned>(options.jobs, c.seeds), options.qps);
  }
  const SizingReport report = SizeFleet(candidates, options);
  PrintSizingReport(candidates, price_sources, options, report, io.out);
  return report.search.found ? 0 : 3;
}

}  // namespace

Command SizeCommandDefinition() {
  return {"size",
          "find the cheapest fleet (replicas of one of several profiles, or with --mixes of "
          "several) that meets the scenario's SLOs at a load, in GPUs and dollars; or the load "
          "a budget sustains",
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
                .Flag("mixes",
                      "also fleets that mix the candidates, each kind a deployment of its own "
                      "profile and price, all in one routing pool (docs/PLANNING.md)")
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
