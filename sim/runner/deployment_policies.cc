#include "sim/runner/deployment_policies.h"

#include "policies/registry.h"
#include "sim/core/hashing.h"

namespace kvroute::sim {

std::vector<Deployment> MakeDeployments(
    const Scenario& scenario, const PointSpec& spec, const ArrivalDriver& arrivals,
    const std::vector<std::unique_ptr<models::CostModel>>& cost_models,
    const ReplicaCacheOracle& oracle, const RangedCacheOracle* event_view,
    const std::vector<std::unique_ptr<models::Replica>>& replicas,
    const models::RequestPool& request_pool) {
  std::vector<Deployment> deployments;
  const PolicySpec& point_policy = scenario.policies[spec.policy_index];
  // Each deployment's policy expects its initial weight share of the traffic.
  // Disaggregated, every request passes through both pools.
  const std::vector<RoutingPool> pools = scenario.Pools();
  double weight_sum = 0;
  for (const RoutingPool& p : pools) weight_sum += scenario.PoolWeightAt(p, 0);
  for (const RoutingPool& pool : pools) {
    // A pool of several deployments (of several GPU kinds) is sized by its
    // first; policies that estimate each replica's work price it on its own
    // kind (replica_cost_models), the others by the first.
    const uint32_t i = pool.first;
    const double share = scenario.disaggregation.enabled ? 1
                         : weight_sum > 0 ? scenario.PoolWeightAt(pool, 0) / weight_sum
                                          : 1.0 / static_cast<double>(pools.size());
    policies::PolicyContext context;
    context.num_replicas = pool.replicas;
    // Each deployment's policy draws from its own streams; the first keeps
    // the point's seed, so one deployment behaves as a plain cluster.
    context.seed = deployments.empty() ? spec.seed : Combine(spec.seed, deployments.size());
    context.cost_model = cost_models[i].get();
    context.block_size_tokens = scenario.resolved_profile.ResolvedEngine().block_size_tokens;
    context.max_num_batched_tokens = scenario.SchedulerOf(i).max_num_batched_tokens;
    context.kv_blocks_per_replica = scenario.KvBlocksOf(i);
    if (pool.count > 1 && scenario.MixedProfiles()) {
      // Per-replica work is priced on each replica's own GPU kind.
      for (uint32_t d = pool.first; d < pool.first + pool.count; ++d) {
        for (uint32_t r = 0; r < scenario.deployments[d].replicas; ++r) {
          context.replica_cost_models.push_back(cost_models[d].get());
          context.replica_batched_tokens.push_back(scenario.SchedulerOf(d).max_num_batched_tokens);
        }
      }
    }
    for (double key_share : arrivals.source().key_shares()) {
      context.key_rates.push_back(key_share * spec.qps * share);
    }
    context.true_key_rates = [source = &arrivals, scale = spec.qps * share](
                                 Time t, std::vector<double>* rates) {
      source->source().KeyLoadAt(t, rates);
      for (double& r : *rates) r *= scale;
    };
    // A deployment may run its own policy (a canary trying a new router); the
    // others run the point's.
    const PolicySpec* own = nullptr;
    for (uint32_t d = pool.first; d < pool.first + pool.count; ++d) {
      if (scenario.deployments[d].policy) own = &*scenario.deployments[d].policy;
    }
    const PolicySpec& policy_spec = own != nullptr ? *own : point_policy;
    const policies::PolicyInfo& info = policies::FindPolicy(policy_spec.name);
    Deployment deployment;
    deployment.offset = pool.offset;
    deployment.size = pool.replicas;
    deployment.policy = info.factory(policies::ResolveParams(info, policy_spec.params), context);
    const bool from_events = event_view != nullptr && !info.kv_event_view.empty();
    deployment.oracle = std::make_unique<DeploymentCacheOracle>(
        from_events ? *event_view : static_cast<const RangedCacheOracle&>(oracle), pool.offset);
    deployment.queues = std::make_unique<DeploymentQueueView>(replicas, request_pool, pool.offset);
    deployment.interval = deployment.policy->ControlInterval();
    deployments.push_back(std::move(deployment));
  }
  return deployments;
}

void AddPolicyStats(const Scenario& scenario, const std::vector<Deployment>& deployments,
                    analysis::PointResult* result) {
  if (deployments.size() == 1) {
    result->policy_stats = deployments[0].policy->Stats();
    return;
  }
  const std::vector<RoutingPool> pools = scenario.Pools();
  for (uint32_t d = 0; d < deployments.size(); ++d) {
    for (auto& [name, value] : deployments[d].policy->Stats()) {
      result->policy_stats.emplace_back(pools[d].name + "." + name, value);
    }
    result->deployment_names.push_back(pools[d].name);
  }
}

}  // namespace kvroute::sim
