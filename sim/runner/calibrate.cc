#include "sim/runner/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/runner/cluster_simulation.h"

namespace kvroute::sim {
namespace {

template <typename... Args>
std::string Line(const char* format, Args... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

// The lower of the two middle values for an even count (calibrate.h says why).
template <typename T>
T LowerMedian(std::vector<T> values) {
  auto middle = values.begin() + (values.size() - 1) / 2;
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// q_cap and the working set there, at one seed: doubling, then bisection to 2%.
SeedCalibration CalibrateSeed(const Scenario& single, size_t slo_index, uint64_t seed,
                              uint32_t* probes) {
  const analysis::Slo& slo = single.slos[slo_index];
  auto probe = [&](double qps, analysis::PointResult* out) {
    ++*probes;
    *out = RunPoint(single, PointSpec{0, qps, seed});
    return slo.Met(out->slo_values[slo_index]);
  };
  analysis::PointResult at_low, result;
  double low = 0, high = 0.5;
  do {
    high *= 2;
    if (high > 1e6)
      throw std::runtime_error("calibrate: one replica meets the SLO beyond 1e6 req/s");
    if (!probe(high, &result)) break;
    low = high;
    at_low = result;
  } while (true);
  while (high - low > 0.02 * high) {
    double mid = (low + high) / 2;
    if (probe(mid, &result)) {
      low = mid;
      at_low = result;
    } else {
      high = mid;
    }
  }
  SeedCalibration c;
  c.seed = seed;
  c.q_cap = low;
  c.first_failing = high;
  c.working_set_blocks = static_cast<int64_t>(std::ceil(at_low.mean_held_kv_blocks));
  c.in_flight = at_low.mean_in_system;
  return c;
}

}  // namespace

CalibrationReport Calibrate(const Scenario& scenario, size_t slo_index) {
  // One replica, the whole key mix, routed trivially.
  Scenario single = scenario;
  single.deployments = {DeploymentSpec{"calibration", 1, 1}};
  single.policies = {PolicySpec{"round_robin", "round_robin", {}, "calibrate"}};
  CalibrationReport report;
  const models::Profile& profile = scenario.resolved_profile;
  report.kv_blocks = scenario.kv_blocks > 0 ? scenario.kv_blocks : profile.KvCapacityBlocks();
  report.prefix_blocks_per_key =
      std::floor(scenario.workload.system_tokens /
                 static_cast<double>(profile.ResolvedEngine().block_size_tokens));

  std::vector<double> caps;
  std::vector<uint32_t> slots;
  for (uint64_t seed : scenario.SeedList()) {
    SeedCalibration c = CalibrateSeed(single, slo_index, seed, &report.probes);
    const int64_t room = std::max<int64_t>(0, report.kv_blocks - c.working_set_blocks);
    c.slots_per_replica =
        report.prefix_blocks_per_key > 0
            ? static_cast<uint32_t>(room / static_cast<int64_t>(report.prefix_blocks_per_key))
            : 0;
    report.derivation.push_back(
        Line("seed %llu: q_cap %.4g req/s (fails at %.4g); working set there %lld KV blocks "
             "(%.1f requests in flight): W = (%lld - %lld) / %.0f = %u",
             static_cast<unsigned long long>(seed), c.q_cap, c.first_failing,
             static_cast<long long>(c.working_set_blocks), c.in_flight,
             static_cast<long long>(report.kv_blocks), static_cast<long long>(c.working_set_blocks),
             report.prefix_blocks_per_key, c.slots_per_replica));
    caps.push_back(c.q_cap);
    slots.push_back(c.slots_per_replica);
    report.seeds.push_back(c);
  }
  report.q_cap = LowerMedian(caps);
  report.slots_per_replica = LowerMedian(slots);
  report.derivation.push_back(
      Line("q_cap and W: the lower median of each over the %zu seeds", report.seeds.size()));
  return report;
}

}  // namespace kvroute::sim
