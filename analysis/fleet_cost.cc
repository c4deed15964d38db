#include "analysis/fleet_cost.h"

#include <cmath>

namespace kvroute::analysis {

double FleetCost::UsdPerHour() const {
  return usd_per_gpu_hour > 0 ? static_cast<double>(Gpus()) * usd_per_gpu_hour : std::nan("");
}

double FleetCost::GpuHours(double seconds) const {
  return static_cast<double>(Gpus()) * seconds / 3600.0;
}

double FleetCost::Usd(double seconds) const { return UsdPerHour() * seconds / 3600.0; }

double FleetCost::UsdPerMillionTokens(double tokens_per_second) const {
  if (!(tokens_per_second > 0)) return std::nan("");
  return UsdPerHour() / (tokens_per_second * 3600.0) * 1e6;
}

}  // namespace kvroute::analysis
