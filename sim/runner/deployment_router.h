// The first level of two-level routing (seed 000): which deployment a
// request goes to, P_d ∝ w_d(now)·2^(λ_h·H_d) over deployments with a healthy
// replica, H_d the request's best prefix hit ratio there; and the
// per-deployment time series the choice leaves (requests, hits, and how often
// a prompt wholly cached elsewhere was sent elsewhere). With routing pools
// (Scenario::Pools), "deployment" here is a pool: its weight is its
// deployments' summed.
#ifndef KVROUTE_SIM_RUNNER_DEPLOYMENT_ROUTER_H_
#define KVROUTE_SIM_RUNNER_DEPLOYMENT_ROUTER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/point_metrics.h"
#include "models/replica_load.h"
#include "models/request.h"
#include "policies/policy.h"
#include "policies/router_prefix_index.h"
#include "sim/core/random_stream.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

class DeploymentRouter {
 public:
  // `oracle` sees every replica's cache; deployments are contiguous replica
  // ranges in scenario order of `replicas_per_deployment` each.
  DeploymentRouter(const Scenario& scenario, uint64_t seed, const policies::CacheOracle& oracle);

  // The deployment for `request`, or the deployment count when no deployment
  // with weight > 0 has a healthy replica. One deployment takes every request
  // without a draw.
  uint32_t Pick(const models::Request& request, Time now,
                std::span<const models::ReplicaLoad> loads);

  // Bookkeeping once `request` was routed to deployment `d` (after Pick), and
  // once it is queued there.
  void OnRouted(const models::Request& request, uint32_t d);
  void OnQueued(const models::Request& request, uint32_t d, Time now);
  // The request's served hit, known at its first admission in deployment d.
  void OnAdmitted(const models::InFlightRequest& r, uint32_t d);

  uint32_t count() const { return static_cast<uint32_t>(offsets_.size()); }
  // The series, with every deployment given a row in the last bucket too, as
  // in the others.
  std::vector<analysis::DeploymentSample> TakeSeries();

 private:
  analysis::DeploymentSample& Sample(Time arrival, uint32_t d);

  const Scenario& scenario_;
  const policies::CacheOracle& oracle_;
  std::vector<RoutingPool> pools_;
  std::vector<uint32_t> offsets_, sizes_;  // per pool
  RandomStream rng_;
  // Per deployment, per request; waiting_: Q_d, only with lambda_q.
  std::vector<double> weights_, hit_ratios_, waiting_, scratch_;
  // deployment_hit_estimate: router: per deployment, the blocks the router sent
  // there (one LRU of its total KV blocks); empty otherwise.
  std::vector<policies::RouterPrefixIndex> sent_;
  Time bucket_;
  std::vector<analysis::DeploymentSample> series_;  // bucket-major, then deployment
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_DEPLOYMENT_ROUTER_H_
