// The second level of routing (seed 000): each deployment (or routing pool of
// deployments), a contiguous range of replicas, runs its own policy instance
// over its replicas only, told its share of the traffic and the workload's
// key rates.
#ifndef KVROUTE_SIM_RUNNER_DEPLOYMENT_POLICIES_H_
#define KVROUTE_SIM_RUNNER_DEPLOYMENT_POLICIES_H_

#include <memory>
#include <vector>

#include "analysis/point_metrics.h"
#include "models/cost_model.h"
#include "models/replica.h"
#include "policies/policy.h"
#include "sim/runner/arrival_driver.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/cluster_views.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct Deployment {
  uint32_t offset = 0;  // its first replica
  uint32_t size = 0;
  std::unique_ptr<policies::Policy> policy;
  std::unique_ptr<DeploymentCacheOracle> oracle;
  std::unique_ptr<DeploymentQueueView> queues;
  Time interval = 0;  // the policy's control interval
};

// One Deployment per routing pool of `scenario` (Scenario::Pools; without
// pool keys, per deployment), in order, each with the policy the point runs
// (or its own), told its replicas' iteration-time model (`cost_models`, one
// per deployment) and KV pool. A policy whose registry entry names a kv_event_view sees the
// caches through `event_view` when it is not null, the others through
// `oracle`. `arrivals`, `oracle`, `event_view`, `replicas` and `pool` must
// outlive them.
std::vector<Deployment> MakeDeployments(
    const Scenario& scenario, const PointSpec& spec, const ArrivalDriver& arrivals,
    const std::vector<std::unique_ptr<models::CostModel>>& cost_models,
    const ReplicaCacheOracle& oracle, const RangedCacheOracle* event_view,
    const std::vector<std::unique_ptr<models::Replica>>& replicas, const models::RequestPool& pool);

// The policies' named statistics into `result`: as they are with one
// deployment, prefixed with the deployment's name (whose names are also
// recorded) with several.
void AddPolicyStats(const Scenario& scenario, const std::vector<Deployment>& deployments,
                    analysis::PointResult* result);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_DEPLOYMENT_POLICIES_H_
