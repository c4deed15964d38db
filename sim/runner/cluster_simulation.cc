#include "sim/runner/cluster_simulation.h"

#include <memory>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/request_source.h"
#include "models/workload.h"
#include "policies/registry.h"
#include "sim/core/event_queue.h"

namespace kvroute::sim {
namespace {

class ClusterSimulation : public models::ReplicaObserver {
 public:
  ClusterSimulation(const Scenario& scenario, const PointSpec& spec)
      : scenario_(scenario),
        spec_(spec),
        profile_(models::FindProfile(scenario.profile)),
        cost_model_(profile_),
        end_of_arrivals_(FromSeconds(scenario.duration_s)),
        hard_stop_(FromSeconds(scenario.duration_s + scenario.drain_s)),
        workload_(
            models::MakeRequestSource(scenario.workload, spec.seed, spec.qps, end_of_arrivals_)),
        metrics_(FromSeconds(scenario.warmup_s), scenario.replica_count(), scenario.slos) {
    const uint32_t replicas = scenario.replica_count();
    uint32_t kv_blocks = static_cast<uint32_t>(
        scenario.kv_blocks > 0 ? scenario.kv_blocks : profile_.KvCapacityBlocks());
    loads_.resize(replicas);
    for (uint32_t r = 0; r < replicas; ++r) {
      replicas_.push_back(std::make_unique<models::Replica>(r, cost_model_, scenario.scheduler,
                                                            kv_blocks, profile_.block_size_tokens,
                                                            pool_, loads_[r]));
    }
    const PolicySpec& policy_spec = scenario.policies[spec.policy_index];
    const policies::PolicyInfo& info = policies::FindPolicy(policy_spec.name);
    policies::PolicyContext context;
    context.num_replicas = replicas;
    context.seed = spec.seed;
    for (double share : workload_->key_shares()) context.key_rates.push_back(share * spec.qps);
    policy_ = info.factory(policies::ResolveParams(info, policy_spec.params), context);
  }

  analysis::PointResult Run(RunStatistics* statistics) {
    if (workload_->Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
    const Time interval = policy_->ControlInterval();
    if (interval > 0 && interval < end_of_arrivals_)
      events_.Push(interval, EventKind::kControlTick);

    uint64_t handled = 0;
    while (!events_.Empty() && events_.Top().time <= hard_stop_) {
      Event event = events_.Pop();
      ++handled;
      switch (event.kind) {
        case EventKind::kArrival:
          OnArrival(event.time);
          break;
        case EventKind::kIterationDone:
          replicas_[event.target]->FinishIteration(event.time, *this);
          StartIteration(event.target, event.time);
          break;
        case EventKind::kControlTick:
          policy_->OnControlTick(View(event.time));
          if (event.time + interval < end_of_arrivals_) {
            events_.Push(event.time + interval, EventKind::kControlTick);
          }
          break;
      }
    }
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
      iterations += replica->counters().iterations;
    }
    result.policy_stats = policy_->Stats();
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
  policies::ClusterView View(Time now) const { return policies::ClusterView{loads_, now}; }

  void OnArrival(Time now) {
    uint32_t slot = pool_.Acquire();
    models::InFlightRequest& r = pool_[slot];
    std::swap(r.request, next_request_);  // swaps buffers: no allocation in steady state
    const models::Request& request = r.request;
    metrics_.OnArrival(request);
    uint32_t target = policy_->Route(request, View(now));
    r.replica = target;
    if (replicas_[target]->Enqueue(slot)) {
      policy_->OnDispatch(request, target, now);
      metrics_.OnDispatched(request, target);
      StartIteration(target, now);
    } else {
      metrics_.OnRejected(request);
      pool_.Release(slot);
    }
    if (workload_->Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
  }

  void StartIteration(uint32_t replica, Time now) {
    models::Replica& r = *replicas_[replica];
    if (r.in_iteration()) return;
    Time duration = r.StartIteration(now, *this);
    if (duration > 0) events_.Push(now + duration, EventKind::kIterationDone, replica);
  }

  const Scenario& scenario_;
  PointSpec spec_;
  const models::Profile& profile_;
  models::RooflineCostModel cost_model_;
  Time end_of_arrivals_;
  Time hard_stop_;
  std::unique_ptr<models::RequestSource> workload_;
  analysis::PointMetricsCollector metrics_;
  models::RequestPool pool_;
  std::vector<models::ReplicaLoad> loads_;
  std::vector<std::unique_ptr<models::Replica>> replicas_;
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
