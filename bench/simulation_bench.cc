// Whole-simulation speed in simulated requests per wall-second on one core
// (DESIGN.md, "Targets"): a quickstart-class point, 8 replicas of
// Llama-3.1-8B, 100 QPS.
#include <benchmark/benchmark.h>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

void BM_QuickstartPoint(benchmark::State& state) {
  Scenario scenario = LoadScenarioText(QuickstartYaml(), "built-in quickstart");
  PointSpec spec{static_cast<size_t>(state.range(0)), 100, 1};
  uint64_t requests = 0;
  for (auto _ : state) {
    analysis::PointResult r = RunPoint(scenario, spec);
    requests += r.offered;
  }
  state.SetLabel(scenario.policies[spec.policy_index].name);
  state.counters["sim_requests_per_s"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_QuickstartPoint)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvroute::sim
