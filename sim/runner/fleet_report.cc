#include "sim/runner/fleet_report.h"

#include <cmath>
#include <cstdio>

namespace kvroute::sim {

analysis::FleetCost ScenarioFleetCost(const Scenario& s, uint64_t replicas) {
  return {.replicas = replicas,
          .gpus_per_replica = static_cast<uint32_t>(s.resolved_profile.tensor_parallel),
          .usd_per_gpu_hour = s.UsdPerGpuHour()};
}

analysis::FleetCost DeploymentFleetCost(const Scenario& s, size_t d, uint64_t replicas) {
  return {.replicas = replicas,
          .gpus_per_replica = static_cast<uint32_t>(s.ProfileOf(d).tensor_parallel),
          .usd_per_gpu_hour = s.UsdPerGpuHourOf(d)};
}

std::string PriceSource(const Scenario& s) {
  if (s.usd_per_gpu_hour > 0) return "cluster.usd_per_gpu_hour";
  if (s.resolved_profile.gpu.usd_per_gpu_hour > 0) {
    return s.resolved_profile.gpu.price_source + "; an assumption";
  }
  return "no price: give cluster.usd_per_gpu_hour";
}

namespace {

// Deployments of their own profile: each one's GPUs and price, and the sum.
std::string MixedFleetCostLine(const Scenario& s) {
  const double held_s = s.duration_s + s.drain_s;
  std::string line = "fleet:";
  double usd_per_hour = 0;
  bool priced = true;
  char text[320];
  for (size_t d = 0; d < s.deployments.size(); ++d) {
    const analysis::FleetCost cost = DeploymentFleetCost(s, d, s.deployments[d].replicas);
    std::snprintf(text, sizeof text,
                  "%s %s %llu replicas x %u GPUs = %llu %s GPUs at $%.4g/GPU-hour",
                  d > 0 ? ";" : "", s.deployments[d].name.c_str(),
                  static_cast<unsigned long long>(cost.replicas), cost.gpus_per_replica,
                  static_cast<unsigned long long>(cost.Gpus()), s.ProfileOf(d).gpu.name.c_str(),
                  cost.usd_per_gpu_hour);
    line += text;
    usd_per_hour += cost.UsdPerHour();
    priced = priced && cost.usd_per_gpu_hour > 0;
  }
  if (priced) {
    std::snprintf(text, sizeof text, "; $%.2f/hour, $%.2f per point (duration_s + drain_s = %g s)",
                  usd_per_hour, usd_per_hour * held_s / 3600, held_s);
  } else {
    std::snprintf(text, sizeof text, "; a deployment has no price: give its usd_per_gpu_hour");
  }
  return line + text;
}

}  // namespace

std::string FleetCostLine(const Scenario& s) {
  if (s.MixedProfiles()) return MixedFleetCostLine(s);
  const analysis::FleetCost cost = ScenarioFleetCost(s, s.replica_count());
  const double held_s = s.duration_s + s.drain_s;
  char text[512];
  std::snprintf(text, sizeof text,
                "fleet: %llu replicas x %u GPUs = %llu %s GPUs; %.4g GPU-hours per point "
                "(duration_s + drain_s = %g s)",
                static_cast<unsigned long long>(cost.replicas), cost.gpus_per_replica,
                static_cast<unsigned long long>(cost.Gpus()), s.resolved_profile.gpu.name.c_str(),
                cost.GpuHours(held_s), held_s);
  std::string line = text;
  if (cost.usd_per_gpu_hour > 0) {
    std::snprintf(text, sizeof text, "; at $%.4g/GPU-hour $%.2f/hour, $%.2f per point (%s)",
                  cost.usd_per_gpu_hour, cost.UsdPerHour(), cost.Usd(held_s),
                  PriceSource(s).c_str());
    line += text;
  } else {
    line += "; " + PriceSource(s);
  }
  return line;
}

void PrintFleetChanges(const Scenario& s, const analysis::PointResult& r, std::ostream& out) {
  for (uint32_t d = 0; d < s.deployments.size(); ++d) {
    if (!s.deployments[d].autoscale) continue;
    const std::string prefix = "autoscale." + s.deployments[d].name + ".";
    auto stat = [&](const char* name) {
      for (const auto& [key, value] : r.policy_stats) {
        if (key == prefix + name) return value;
      }
      return std::nan("");
    };
    char text[320];
    std::snprintf(text, sizeof text,
                  "  autoscale %s: %.2f replicas billed on average, %.3g GPU-hours, $%.2f over "
                  "the measured window; %.0f added, %.0f removed\n",
                  s.deployments[d].name.c_str(), stat("mean_replicas"), stat("gpu_hours"),
                  stat("usd"), stat("scale_ups"), stat("scale_downs"));
    out << text << "  changes (s: requested/serving/billed):";
    for (const analysis::FleetChange& c : r.fleet_changes) {
      if (c.deployment != d) continue;
      std::snprintf(text, sizeof text, " %g: %u/%u/%u", c.at_s, c.requested, c.serving, c.billed);
      out << text;
    }
    out << "\n";
  }
}

}  // namespace kvroute::sim
