#include "sim/runner/cluster_simulation.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/workload.h"
#include "policies/registry.h"
#include "sim/core/event_queue.h"

namespace kvroute::sim {
namespace {

// Tenants with their own TTFT histogram in the metrics: the few with the most
// expected traffic (a tenant is its routing key in this workload).
constexpr size_t kTrackedTenants = 4;

std::vector<uint32_t> TopTenants(const std::vector<double>& shares) {
  std::vector<uint32_t> order(shares.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  size_t n = std::min(kTrackedTenants, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](uint32_t a, uint32_t b) {
                      return shares[a] != shares[b] ? shares[a] > shares[b] : a < b;
                    });
  order.resize(n);
  return order;
}

std::unique_ptr<models::CostModel> MakeCostModel(const Scenario& scenario,
                                                 const models::Profile& profile) {
  if (scenario.fixed_iteration_s > 0) {
    return std::make_unique<models::FixedCostModel>(FromSeconds(scenario.fixed_iteration_s));
  }
  return std::make_unique<models::RooflineCostModel>(profile);
}
// The replicas' real prefix caches, offered read-only to policies.
class ReplicaCacheOracle : public policies::CacheOracle {
 public:
  explicit ReplicaCacheOracle(const std::vector<std::unique_ptr<models::Replica>>& replicas)
      : replicas_(replicas) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return replicas_[replica]->kv_cache().MatchPrefix(chain);
  }

 private:
  const std::vector<std::unique_ptr<models::Replica>>& replicas_;
};

class ClusterSimulation : public models::ReplicaObserver {
 public:
  ClusterSimulation(const Scenario& scenario, const PointSpec& spec)
      : scenario_(scenario),
        spec_(spec),
        profile_(scenario.resolved_profile),
        cost_model_(MakeCostModel(scenario, profile_)),
        end_of_arrivals_(FromSeconds(scenario.duration_s)),
        hard_stop_(FromSeconds(scenario.duration_s + scenario.drain_s)),
        warmup_(FromSeconds(scenario.warmup_s)),
        workload_(scenario.workload, spec.seed, spec.qps, end_of_arrivals_),
        metrics_(FromSeconds(scenario.warmup_s), scenario.replica_count(), scenario.slos,
                 TopTenants(workload_.key_shares())),
        oracle_(replicas_),
        refresh_(FromSeconds(scenario.signal_refresh_s)) {
    const uint32_t replicas = scenario.replica_count();
    uint32_t kv_blocks = static_cast<uint32_t>(
        scenario.kv_blocks > 0 ? scenario.kv_blocks : profile_.KvCapacityBlocks());
    loads_.resize(replicas);
    iteration_event_.assign(replicas, UINT64_MAX);
    seen_loads_.resize(replicas);
    for (uint32_t r = 0; r < replicas; ++r) {
      replicas_.push_back(std::make_unique<models::Replica>(r, *cost_model_, scenario.scheduler,
                                                            kv_blocks, profile_.block_size_tokens,
                                                            pool_, loads_[r]));
    }
    const PolicySpec& policy_spec = scenario.policies[spec.policy_index];
    const policies::PolicyInfo& info = policies::FindPolicy(policy_spec.name);
    policies::PolicyContext context;
    context.num_replicas = replicas;
    context.seed = spec.seed;
    context.cost_model = cost_model_.get();
    context.block_size_tokens = profile_.block_size_tokens;
    context.max_num_batched_tokens = scenario.scheduler.max_num_batched_tokens;
    context.kv_blocks_per_replica = kv_blocks;
    for (double share : workload_.key_shares()) context.key_rates.push_back(share * spec.qps);
    policy_ = info.factory(policies::ResolveParams(info, policy_spec.params), context);
  }

  analysis::PointResult Run(RunStatistics* statistics) {
    if (workload_.Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
    const Time interval = policy_->ControlInterval();
    if (interval > 0 && interval < end_of_arrivals_)
      events_.Push(interval, EventKind::kControlTick);
    for (const FailureEvent& f : scenario_.failures) {
      events_.Push(FromSeconds(f.at_s), EventKind::kReplicaFailure, f.replica);
      if (f.recover_after_s > 0) {
        events_.Push(FromSeconds(f.at_s + f.recover_after_s), EventKind::kReplicaRecovery,
                     f.replica);
      }
    }
    if (refresh_ > 0) events_.Push(0, EventKind::kSignalRefresh);

    uint64_t handled = 0;
    while (!events_.Empty() && events_.Top().time <= hard_stop_) {
      Event event = events_.Pop();
      ++handled;
      IntegrateInSystem(event.time);
      switch (event.kind) {
        case EventKind::kArrival:
          OnArrival(event.time);
          break;
        case EventKind::kIterationDone:
          // The iteration of a replica that failed meanwhile never finishes.
          if (event.sequence != iteration_event_[event.target]) break;
          replicas_[event.target]->FinishIteration(event.time, *this);
          StartIteration(event.target, event.time);
          break;
        case EventKind::kReplicaFailure:
          OnReplicaFailure(event.target, event.time);
          break;
        case EventKind::kReplicaRecovery:
          loads_[event.target].healthy = true;  // back with an empty cache
          break;
        case EventKind::kControlTick:
          policy_->OnControlTick(View(event.time));
          if (event.time + interval < end_of_arrivals_) {
            events_.Push(event.time + interval, EventKind::kControlTick);
          }
          break;
        case EventKind::kSignalRefresh:
          seen_loads_ = loads_;
          if (event.time + refresh_ < end_of_arrivals_) {
            events_.Push(event.time + refresh_, EventKind::kSignalRefresh);
          }
          break;
      }
    }
    IntegrateInSystem(end_of_arrivals_);
    for (uint32_t slot = 0; slot < pool_.slot_count(); ++slot) {
      if (pool_[slot].in_use) metrics_.OnUnfinished(pool_[slot]);
    }

    analysis::PointResult result;
    result.policy = scenario_.policies[spec_.policy_index].name;
    result.qps = spec_.qps;
    result.seed = spec_.seed;
    metrics_.Summarize(&result);
    uint64_t iterations = 0;
    for (const auto& replica : replicas_) {
      result.prefill_tokens_computed += replica->counters().prefill_tokens_computed;
      result.cache_evictions += replica->kv_cache().counters().evictions;
      result.preemptions += replica->counters().preemptions;
      result.replica_failures += replica->counters().failures;
      iterations += replica->counters().iterations;
    }
    result.policy_stats = policy_->Stats();
    const double window = ToSeconds(end_of_arrivals_ - warmup_);
    result.mean_in_system = in_system_seconds_ / window;
    result.mean_held_kv_blocks =
        held_block_seconds_ / window / static_cast<double>(replicas_.size());
    result.simulated_s = ToSeconds(events_.Now());
    if (statistics) *statistics = RunStatistics{.events = handled, .iterations = iterations};
    return result;
  }

  void OnAdmitted(uint32_t slot, Time) override { metrics_.OnAdmitted(pool_[slot]); }
  void OnFirstToken(uint32_t, Time) override {}
  void OnCompleted(uint32_t slot, Time now) override {
    const models::InFlightRequest& r = pool_[slot];
    metrics_.OnCompleted(r, now);
    policy_->OnComplete(r.request, r.replica, now);
    pool_.Release(slot);
  }

 private:
  policies::ClusterView View(Time now) {
    // With polling, loads come from the last poll; health is always current
    // (a failed replica refuses connections at once).
    if (refresh_ > 0) {
      for (size_t r = 0; r < loads_.size(); ++r) seen_loads_[r].healthy = loads_[r].healthy;
      return policies::ClusterView{seen_loads_, now, &oracle_};
    }
    return policies::ClusterView{loads_, now, &oracle_};
  }

  void OnArrival(Time now) {
    uint32_t slot = pool_.Acquire();
    models::InFlightRequest& r = pool_[slot];
    std::swap(r.request, next_request_);  // swaps buffers: no allocation in steady state
    metrics_.OnArrival(r.request);
    Dispatch(slot, now);
    if (workload_.Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
  }

  // Routes the request in `slot` and queues it on the chosen replica.
  void Dispatch(uint32_t slot, Time now) {
    models::InFlightRequest& r = pool_[slot];
    if (!AnyHealthy()) {
      metrics_.OnFailed(r.request);
      pool_.Release(slot);
      return;
    }
    uint32_t target = policy_->Route(r.request, View(now));
    r.replica = target;
    if (replicas_[target]->Enqueue(slot)) {
      policy_->OnDispatch(r.request, target, now);
      metrics_.OnDispatched(r.request, target);
      StartIteration(target, now);
    } else {
      metrics_.OnRejected(r.request);
      pool_.Release(slot);
    }
  }

  // A failed replica loses its cache and its work; each request it held is
  // retried on another replica up to the scenario's retry limit, else failed.
  void OnReplicaFailure(uint32_t replica, Time now) {
    if (!loads_[replica].healthy) return;
    loads_[replica].healthy = false;
    dropped_.clear();
    replicas_[replica]->Fail(&dropped_);
    for (uint32_t slot : dropped_) {
      models::InFlightRequest& r = pool_[slot];
      policy_->OnComplete(r.request, replica, now);  // it no longer runs there
      if (r.retries >= scenario_.retry_limit) {
        metrics_.OnFailed(r.request);
        pool_.Release(slot);
        continue;
      }
      ++r.retries;
      metrics_.OnRetried(r.request);
      Dispatch(slot, now);
    }
  }

  bool AnyHealthy() const {
    for (const models::ReplicaLoad& load : loads_) {
      if (load.healthy) return true;
    }
    return false;
  }

  // Accumulates requests-in-system × time (the L of Little's law) and KV
  // blocks held by running requests × time over [warm-up, end of arrivals].
  void IntegrateInSystem(Time now) {
    Time from = std::max(last_integrated_, warmup_);
    Time to = std::min(now, end_of_arrivals_);
    if (to > from) {
      double dt = ToSeconds(to - from);
      in_system_seconds_ += static_cast<double>(pool_.in_flight()) * dt;
      uint64_t held = 0;  // blocks pinned or reserved by running requests
      for (const auto& replica : replicas_) {
        held += replica->kv_cache().used_blocks() - replica->kv_cache().evictable_blocks();
      }
      held_block_seconds_ += static_cast<double>(held) * dt;
    }
    last_integrated_ = std::max(last_integrated_, now);
  }

  void StartIteration(uint32_t replica, Time now) {
    models::Replica& r = *replicas_[replica];
    if (r.in_iteration()) return;
    Time duration = r.StartIteration(now, *this);
    if (duration > 0) {
      iteration_event_[replica] = events_.Push(now + duration, EventKind::kIterationDone, replica);
    }
  }

  const Scenario& scenario_;
  PointSpec spec_;
  const models::Profile& profile_;
  std::unique_ptr<models::CostModel> cost_model_;
  Time end_of_arrivals_;
  Time hard_stop_;
  Time warmup_;
  Time last_integrated_ = 0;
  double in_system_seconds_ = 0;
  double held_block_seconds_ = 0;
  models::WorkloadGenerator workload_;
  analysis::PointMetricsCollector metrics_;
  models::RequestPool pool_;
  std::vector<models::ReplicaLoad> loads_;
  std::vector<std::unique_ptr<models::Replica>> replicas_;
  std::vector<uint64_t> iteration_event_;  // per replica: sequence of its pending iteration
  std::vector<uint32_t> dropped_;          // scratch for failures
  ReplicaCacheOracle oracle_;
  Time refresh_;                                 // signal poll period; 0 = live
  std::vector<models::ReplicaLoad> seen_loads_;  // the router's last poll
  std::unique_ptr<policies::Policy> policy_;
  EventQueue events_;
  models::Request next_request_;
};

}  // namespace

analysis::PointResult RunPoint(const Scenario& scenario, const PointSpec& spec,
                               RunStatistics* statistics) {
  ClusterSimulation simulation(scenario, spec);
  return simulation.Run(statistics);
}

}  // namespace kvroute::sim
