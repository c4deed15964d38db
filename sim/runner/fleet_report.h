// A scenario's fleet in GPUs and dollars (issue 15): the price it is costed at
// and where that price comes from, and one line for `kvroute validate`.
#ifndef KVROUTE_SIM_RUNNER_FLEET_REPORT_H_
#define KVROUTE_SIM_RUNNER_FLEET_REPORT_H_

#include <ostream>
#include <string>

#include "analysis/fleet_cost.h"
#include "analysis/point_metrics.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

// `replicas` of the scenario's profile at the scenario's price.
analysis::FleetCost ScenarioFleetCost(const Scenario& s, uint64_t replicas);

// `replicas` of deployment d's profile at its price.
analysis::FleetCost DeploymentFleetCost(const Scenario& s, size_t d, uint64_t replicas);

// "the scenario (cluster.usd_per_gpu_hour)" or the GPU file's source.
std::string PriceSource(const Scenario& s);

// "fleet: 8 replicas x 2 GPUs = 16 h100-sxm GPUs at $3.348/GPU-hour = $53.57/hour;
// a point (duration_s + drain_s) holds them 420 s: 1.87 GPU-hours, $6.25";
// with deployments of their own profile, one such part per deployment and
// the total.
std::string FleetCostLine(const Scenario& s);

// For `kvroute point`: each autoscaled deployment's billed replicas,
// GPU-hours and dollars over the measured window, and its changes over time.
// Nothing when no deployment autoscales.
void PrintFleetChanges(const Scenario& s, const analysis::PointResult& r, std::ostream& out);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_FLEET_REPORT_H_
