// The CacheRoute plan at the paper's scale: 128,824 keys on 30 destinations
// (seed 003 §3.1 reports 345 ms; DESIGN.md targets <= 20 ms).
#include <benchmark/benchmark.h>

#include "models/workload.h"
#include "policies/cacheroute_planner.h"

namespace kvroute::policies {
namespace {

void BM_BuildPlan(benchmark::State& state) {
  std::vector<double> rates = models::ZipfShares(128824, 1.0);
  for (double& r : rates) r *= 176;  // the flagship's capacity, req/s
  PlannerConfig config{.destinations = 30, .q_cap = 6, .slots_per_destination = 256};
  for (auto _ : state) {
    RoutingPlan plan = BuildPlan(rates, config);
    benchmark::DoNotOptimize(plan.admitted_keys());
  }
  state.SetLabel("128824 keys, 30 destinations");
}
BENCHMARK(BM_BuildPlan)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvroute::policies
