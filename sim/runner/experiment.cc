#include "sim/runner/experiment.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <tuple>

#include "analysis/build_info.h"
#include "sim/core/hashing.h"

namespace kvroute::sim {
namespace {

// A point's identity: policy name, load (bit pattern, so equality is exact)
// and seed.
using PointKey = std::tuple<std::string, uint64_t, uint64_t>;

PointKey KeyOf(const std::string& policy, double qps, uint64_t seed) {
  return {policy, std::bit_cast<uint64_t>(qps), seed};
}

}  // namespace

std::vector<PointSpec> SweepPoints(const Scenario& scenario) {
  std::vector<PointSpec> points;
  for (size_t p = 0; p < scenario.policies.size(); ++p) {
    for (double qps : scenario.qps) {
      for (uint64_t seed : scenario.SeedList()) points.push_back(PointSpec{p, qps, seed});
    }
  }
  return points;
}

std::vector<PointSpec> RefinementPoints(const Scenario& scenario,
                                        std::span<const analysis::PointResult> points) {
  std::vector<PointSpec> next;
  const analysis::BisectionPrecision precision = scenario.Precision();
  if (!precision.enabled()) return next;
  for (size_t p = 0; p < scenario.policies.size(); ++p) {
    for (uint64_t seed : scenario.SeedList()) {
      std::vector<const analysis::PointResult*> mine;
      for (const analysis::PointResult& r : points) {
        if (r.policy == scenario.policies[p].label && r.seed == seed) mine.push_back(&r);
      }
      std::sort(mine.begin(), mine.end(),
                [](const auto* a, const auto* b) { return a->qps < b->qps; });
      for (size_t s = 0; s < scenario.slos.size(); ++s) {
        // The first failing load; the bracket is it and the load below it.
        size_t fail = 0;
        while (fail < mine.size() && scenario.slos[s].Met(mine[fail]->slo_values[s])) ++fail;
        if (fail == 0 || fail == mine.size()) continue;  // censored
        double low = mine[fail - 1]->qps, high = mine[fail]->qps;
        if (precision.Resolved(low, high)) continue;
        next.push_back(PointSpec{p, low + (high - low) / 2, seed});
      }
    }
  }
  auto order = [](const PointSpec& a, const PointSpec& b) {
    return std::tie(a.policy_index, a.qps, a.seed) < std::tie(b.policy_index, b.qps, b.seed);
  };
  auto same = [](const PointSpec& a, const PointSpec& b) {
    return a.policy_index == b.policy_index && a.qps == b.qps && a.seed == b.seed;
  };
  std::sort(next.begin(), next.end(), order);
  next.erase(std::unique(next.begin(), next.end(), same), next.end());
  return next;
}

analysis::SweepResults RunSweep(const Scenario& scenario, PointExecutor& executor,
                                const SweepOptions& options) {
  std::map<PointKey, const analysis::PointResult*> finished;
  for (const analysis::PointResult& p : options.finished) {
    finished[KeyOf(p.policy, p.qps, p.seed)] = &p;
  }
  analysis::SweepResults results;
  results.slos = scenario.slos;
  results.baseline = scenario.baseline;

  size_t done = 0, known = 0;
  std::vector<PointSpec> round = SweepPoints(scenario);
  for (uint32_t r = 0; !round.empty(); ++r) {
    size_t first = results.points.size();
    results.points.resize(first + round.size());
    known += round.size();
    std::vector<PointSpec> to_run;
    std::vector<size_t> slots;
    for (size_t i = 0; i < round.size(); ++i) {
      auto it = finished.find(
          KeyOf(scenario.policies[round[i].policy_index].label, round[i].qps, round[i].seed));
      if (it != finished.end()) {
        results.points[first + i] = *it->second;
        ++done;
      } else {
        to_run.push_back(round[i]);
        slots.push_back(first + i);
      }
    }
    executor.Run(scenario, to_run, [&](size_t i, analysis::PointResult point) {
      point.refinement_round = r;
      analysis::PointResult& slot = results.points[slots[i]];
      slot = std::move(point);
      ++done;
      if (options.on_point) options.on_point(done, known, slot);
    });
    round = RefinementPoints(scenario, results.points);
  }
  analysis::ComputeCapacityAndSummary(scenario.reference_qps, scenario.Precision(), &results);
  return results;
}

std::string ScenarioHash(const Scenario& scenario) {
  // Another kvroute may simulate the same scenario differently: its points
  // must not be mixed with this one's.
  std::string identity = scenario.yaml + "\n# kvroute " + analysis::KvrouteVersion() + " " +
                         analysis::GitRevision() + "\n# seeds: " + std::to_string(scenario.seeds) +
                         "\n# policies:";
  for (const PolicySpec& p : scenario.policies) identity += " " + p.label;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(HashString(identity)));
  return hex;
}

}  // namespace kvroute::sim
