// What a fleet of replicas costs (issue 15): GPUs, US dollars per hour,
// GPU-hours and dollars over a span of time, dollars per million tokens. The
// price of a GPU-hour comes from the GPU's file (models/gpus/*.yaml, with its
// source) or the scenario's cluster.usd_per_gpu_hour.
#ifndef KVROUTE_ANALYSIS_FLEET_COST_H_
#define KVROUTE_ANALYSIS_FLEET_COST_H_

#include <cstdint>

namespace kvroute::analysis {

struct FleetCost {
  uint64_t replicas = 0;
  uint32_t gpus_per_replica = 1;  // the profile's tensor-parallel degree
  double usd_per_gpu_hour = 0;    // 0: unknown; every dollar figure is then NaN

  uint64_t Gpus() const { return replicas * gpus_per_replica; }
  double UsdPerHour() const;
  // Over `seconds` of wall-clock (simulated) time.
  double GpuHours(double seconds) const;
  double Usd(double seconds) const;
  // Dollars per million tokens at a sustained `tokens_per_second`; NaN when
  // nothing is produced or the price is unknown.
  double UsdPerMillionTokens(double tokens_per_second) const;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_FLEET_COST_H_
