// Pieces a point's cluster simulation is built from: its iteration-time
// model, the tenants whose latency it tracks, and the view of the replicas'
// caches that routers indexing KV events are given.
#ifndef KVROUTE_SIM_RUNNER_POINT_SETUP_H_
#define KVROUTE_SIM_RUNNER_POINT_SETUP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "sim/core/time.h"
#include "sim/runner/cluster_views.h"
#include "sim/runner/scenario.h"
#include "sim/runner/stale_cache_view.h"

namespace kvroute::sim {

// Tenants with their own TTFT histogram in the metrics: the few with the most
// expected traffic, summed over their keys (workload.tenants groups keys).
std::vector<uint32_t> TopTenants(const std::vector<double>& shares);

std::unique_ptr<models::CostModel> MakeCostModel(const Scenario& scenario,
                                                 const models::Profile& profile);

// The delayed, lossy view of cluster.kv_events over `replicas`, each of whose
// caches then publishes to it; null when the scenario has no kv_events (and
// no cache publishes anything). `exact`, `replicas` and `clock` must outlive it.
std::unique_ptr<StaleCacheView> MakeEventView(
    const Scenario& scenario, uint64_t seed, const ReplicaCacheOracle& exact,
    const std::vector<std::unique_ptr<models::Replica>>& replicas, std::function<Time()> clock);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_POINT_SETUP_H_
