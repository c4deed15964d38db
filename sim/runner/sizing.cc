#include "sim/runner/sizing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/runner/fleet_report.h"
#include "sim/runner/work_estimate.h"

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

FleetEvaluation EvaluateFleet(const std::vector<Scenario>& candidates, const analysis::Fleet& fleet,
                              const SizingOptions& options) {
  const Scenario s = FleetScenario(candidates, fleet);
  std::vector<PointSpec> specs;
  for (uint64_t seed : s.SeedList()) specs.push_back({options.policy_index, options.qps, seed});
  std::vector<analysis::PointResult> results(specs.size());
  ThreadExecutor executor(options.jobs);
  executor.Run(s, specs, [&](size_t i, analysis::PointResult r) { results[i] = std::move(r); });

  FleetEvaluation e;
  e.fleet = fleet;
  e.replicas = s.replica_count();
  for (size_t d = 0; d < s.deployments.size(); ++d) {
    const analysis::FleetCost cost = DeploymentFleetCost(s, d, s.deployments[d].replicas);
    e.gpus += cost.Gpus();
    e.usd_per_hour += cost.UsdPerHour();
  }
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
  const double usd_in_window = e.usd_per_hour * window_s / 3600;
  for (const analysis::PointResult& r : results) {
    const double n = static_cast<double>(results.size());
    e.token_hit_rate += r.token_hit_rate / n;
    e.imbalance += r.imbalance / n;
    e.kv_utilization += MeanKvUtilization(r, s) / n;
    e.usd_per_million_prompt_tokens +=
        usd_in_window / (static_cast<double>(PromptTokens(r, s)) / 1e6) / n;
    e.preemptions += static_cast<double>(r.preemptions) / n;
    e.in_system_per_replica += r.mean_in_system / e.replicas / n;
  }
  // A mix's replicas may differ in max_num_seqs (vLLM's per-GPU defaults):
  // the rule of thumb takes the fleet's mean slots per replica.
  double slots = 0;
  for (size_t d = 0; d < s.deployments.size(); ++d) {
    slots +=
        static_cast<double>(s.SchedulerOf(d).max_num_seqs) * s.deployments[d].replicas / e.replicas;
  }
  e.binding = BindingResource(e, slots);
  return e;
}

std::string BindingResource(const FleetEvaluation& e, double max_num_seqs) {
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

analysis::Fleet OneKind(size_t kinds, size_t k, uint32_t replicas) {
  analysis::Fleet fleet(kinds, 0);
  fleet.at(k) = replicas;
  return fleet;
}

void CheckMixable(const std::vector<Scenario>& candidates) {
  const Scenario& first = candidates.at(0);
  const int block = first.resolved_profile.ResolvedEngine().block_size_tokens;
  for (const Scenario& c : candidates) {
    const std::string name = "profile '" + c.resolved_profile.name + "'";
    if (c.resolved_profile.model.name != first.resolved_profile.model.name) {
      throw std::invalid_argument(name + " serves model '" + c.resolved_profile.model.name +
                                  "' and profile '" + first.resolved_profile.name + "' model '" +
                                  first.resolved_profile.model.name +
                                  "': the replicas of one pool serve one model");
    }
    if (const int own = c.resolved_profile.ResolvedEngine().block_size_tokens; own != block) {
      throw std::invalid_argument(
          name + " has KV blocks of " + std::to_string(own) + " tokens, profile '" +
          first.resolved_profile.name + "' of " + std::to_string(block) +
          ": prefix hashes are per block (set cluster.engine.block_size_tokens)");
    }
    if (c.kv_tiers.dram_gib > 0) {
      throw std::invalid_argument(
          "cluster.kv_tiers is sized for one profile; a host tier in a fleet of several "
          "profiles is not modelled yet");
    }
    if (c.deployments.at(0).autoscale) {
      throw std::invalid_argument("deployment '" + c.deployments[0].name +
                                  "' autoscales; mixes are sized as fixed fleets");
    }
  }
}

Scenario FleetScenario(const std::vector<Scenario>& candidates, const analysis::Fleet& fleet) {
  std::vector<size_t> present;
  for (size_t k = 0; k < fleet.size(); ++k) {
    if (fleet[k] > 0) present.push_back(k);
  }
  if (present.size() == 1) return WithReplicas(candidates.at(present[0]), fleet[present[0]]);
  Scenario s = candidates.at(present.at(0));
  const DeploymentSpec given = s.deployments.at(0);
  s.deployments.clear();
  for (size_t k : present) {
    const Scenario& c = candidates[k];
    DeploymentSpec d = given;
    d.name = c.resolved_profile.name;
    d.replicas = fleet[k];
    d.profile = c.resolved_profile;  // the cluster's engine arguments already applied
    d.profile_ref = c.profile_inline ? "" : c.profile;
    d.usd_per_gpu_hour = c.UsdPerGpuHour();
    d.pool = given.PoolName();
    if (!s.deployments.empty()) d.policy.reset();  // one policy per pool
    s.deployments.push_back(std::move(d));
  }
  return s;
}

std::vector<analysis::Fleet> Neighbours(const analysis::Fleet& fleet, bool more,
                                        uint32_t max_replicas) {
  std::vector<analysis::Fleet> out;
  const uint64_t total = analysis::ReplicasIn(fleet);
  for (size_t k = 0; k < fleet.size(); ++k) {
    if (fleet[k] == 0 || (more ? fleet[k] >= max_replicas : total == 1)) continue;
    analysis::Fleet f = fleet;
    f[k] = more ? f[k] + 1 : f[k] - 1;
    out.push_back(std::move(f));
  }
  return out;
}

uint64_t MixedFleetBound(const std::vector<uint32_t>& caps) {
  if (caps.size() < 2) return 0;
  // Saturates rather than wraps: the bound is only compared with a limit.
  constexpr uint64_t kHuge = uint64_t{1} << 62;
  uint64_t combinations = 1;
  for (size_t k = 0; k + 1 < caps.size(); ++k) {
    combinations = combinations > kHuge / (uint64_t{caps[k]} + 1)
                       ? kHuge
                       : combinations * (uint64_t{caps[k]} + 1);
  }
  uint64_t halvings = 0;
  while ((uint64_t{1} << halvings) < uint64_t{caps.back()} + 1) ++halvings;
  // The combination of no replica of the first kinds is not searched.
  return std::min(kHuge, (combinations - 1) * (1 + halvings));
}

SizingReport SizeFleet(const std::vector<Scenario>& candidates, const SizingOptions& options) {
  SizingReport report;
  for (const Scenario& c : candidates) {
    report.kinds.push_back(
        {c.resolved_profile.name, ScenarioFleetCost(c, 1).UsdPerHour(), options.max_replicas});
  }
  auto evaluate = [&](const analysis::Fleet& fleet) {
    if (const FleetEvaluation* e = FindEvaluation(report, fleet)) return e->met;
    report.evaluations.push_back(EvaluateFleet(candidates, fleet, options));
    return report.evaluations.back().met;
  };
  report.search = analysis::FindCheapestFleet(report.kinds, evaluate, /*mixes=*/false);
  if (options.mixes && candidates.size() > 1) {
    // A mix holds fewer of each kind than that kind's fewest alone
    // (analysis/fleet_search.cc): that bounds the work before it starts.
    for (size_t k = 0; k < candidates.size(); ++k) {
      const uint32_t alone = report.search.single_kind_minimum[k];
      report.mix_caps.push_back(alone > 0 ? alone - 1 : options.max_replicas);
    }
    report.mixed_fleet_bound = MixedFleetBound(report.mix_caps);
    if (!options.ignore_limits && report.mixed_fleet_bound > 0) {
      if (report.mixed_fleet_bound > kMaxMixedFleets) {
        std::string caps;
        for (size_t k = 0; k < candidates.size(); ++k) {
          caps += (k ? ", " : "") + report.kinds[k].name + " " + std::to_string(report.mix_caps[k]);
        }
        throw std::runtime_error(
            "--mixes: mixing the candidates could take up to " +
            std::to_string(report.mixed_fleet_bound) + " fleets (the most replicas of each " +
            "kind worth trying in a mix: " + caps + "), more than the " +
            std::to_string(kMaxMixedFleets) +
            " a search may simulate; lower --max-replicas, give fewer --profile, or pass " +
            "--ignore-limits if you mean it (docs/PLANNING.md, \"Mixes of profiles\")");
      }
      const Scenario largest = FleetScenario(candidates, report.mix_caps);
      CheckWorkLimits(largest, EstimatePointWork(largest, options.qps),
                      std::min<unsigned>(options.jobs, largest.seeds));
    }
    // The single kinds again come from the evaluations already made.
    report.search = analysis::FindCheapestFleet(report.kinds, evaluate, /*mixes=*/true);
  }
  // The neighbours of each single-kind answer and of the cheapest fleet: one
  // replica fewer of a kind (must fail if the policy is monotone there; the
  // bisection knows it for one kind) and one more (simulated, so that a fleet
  // that gets worse with size is seen).
  std::vector<analysis::Fleet> answers;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const uint32_t n = report.search.single_kind_minimum[k];
    if (n > 0) answers.push_back(OneKind(candidates.size(), k, n));
  }
  if (report.search.found) answers.push_back(report.search.cheapest);
  for (const analysis::Fleet& answer : answers) {
    for (bool more : {false, true}) {
      for (const analysis::Fleet& f : Neighbours(answer, more, options.max_replicas)) {
        // One fewer of a single kind was bisected already.
        evaluate(f);
      }
    }
  }
  return report;
}

const FleetEvaluation* FindEvaluation(const SizingReport& report, const analysis::Fleet& fleet) {
  for (const FleetEvaluation& e : report.evaluations) {
    if (e.fleet == fleet) return &e;
  }
  return nullptr;
}

}  // namespace kvroute::sim
