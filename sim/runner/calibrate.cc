#include "sim/runner/calibrate.h"

#include <cmath>
#include <cstdio>

#include "sim/runner/cluster_simulation.h"

namespace kvroute::sim {
namespace {

std::string Line(const char* format, double a, double b = 0, double c = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, a, b, c);
  return buffer;
}

}  // namespace

CalibrationReport Calibrate(const Scenario& scenario, size_t slo_index) {
  // One replica, the whole key mix, routed trivially.
  Scenario single = scenario;
  single.deployments = {DeploymentSpec{"calibration", 1, 1}};
  single.policies = {PolicySpec{"round_robin", "round_robin", {}, "calibrate"}};
  const analysis::Slo& slo = scenario.slos[slo_index];
  CalibrationReport report;

  auto probe = [&](double qps, analysis::PointResult* out) {
    ++report.probes;
    *out = RunPoint(single, PointSpec{0, qps, scenario.seed});
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
  report.q_cap = low;
  report.first_failing = high;
  report.derivation.push_back(
      Line("q_cap = %.2f req/s: one replica alone meets the SLO there and fails it at %.2f req/s",
           low, high));

  const models::Profile& profile = scenario.resolved_profile;
  report.kv_blocks = scenario.kv_blocks > 0 ? scenario.kv_blocks : profile.KvCapacityBlocks();
  report.prefix_blocks_per_key =
      std::floor(scenario.workload.system_tokens /
                 static_cast<double>(profile.ResolvedEngine().block_size_tokens));
  report.working_set_blocks = static_cast<int64_t>(std::ceil(at_low.mean_held_kv_blocks));
  int64_t room = std::max<int64_t>(0, report.kv_blocks - report.working_set_blocks);
  report.slots_per_replica =
      report.prefix_blocks_per_key > 0
          ? static_cast<uint32_t>(room / static_cast<int64_t>(report.prefix_blocks_per_key))
          : 0;
  report.derivation.push_back(
      Line("working set at q_cap: %.0f KV blocks held by running requests "
           "on average (%.1f requests in flight)",
           static_cast<double>(report.working_set_blocks), at_low.mean_in_system));
  report.derivation.push_back(
      Line("W = (%.0f KV blocks - %.0f working-set blocks) / %.0f "
           "prefix blocks per key",
           static_cast<double>(report.kv_blocks), static_cast<double>(report.working_set_blocks),
           report.prefix_blocks_per_key));
  return report;
}

}  // namespace kvroute::sim
