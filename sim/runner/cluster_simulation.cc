#include "sim/runner/cluster_simulation.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/request_source.h"
#include "models/workload.h"
#include "policies/deployment_choice.h"
#include "policies/registry.h"
#include "policies/router_prefix_index.h"
#include "sim/core/event_queue.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::sim {
namespace {

// Tenants with their own TTFT histogram in the metrics: the few with the most
// expected traffic, summed over their keys (workload.tenants groups keys).
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

// The caches of one deployment's replicas, indexed from 0 as its policy sees them.
class DeploymentCacheOracle : public policies::CacheOracle {
 public:
  DeploymentCacheOracle(const policies::CacheOracle& all, uint32_t offset)
      : all_(all), offset_(offset) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return all_.CachedPrefixBlocks(offset_ + replica, chain);
  }

 private:
  const policies::CacheOracle& all_;
  uint32_t offset_;
};

// The waiting queues of one deployment's replicas, indexed from 0 as its
// policy sees them.
class DeploymentQueueView : public policies::QueueView {
 public:
  DeploymentQueueView(const std::vector<std::unique_ptr<models::Replica>>& replicas,
                      const models::RequestPool& pool, uint32_t offset)
      : replicas_(replicas), pool_(pool), offset_(offset) {}
  uint32_t QueuedCount(uint32_t replica) const override {
    return replicas_[offset_ + replica]->waiting_count();
  }
  const models::Request* Queued(uint32_t replica, uint32_t i) const override {
    const models::InFlightRequest& r = pool_[replicas_[offset_ + replica]->waiting_slot(i)];
    return r.ever_admitted ? nullptr : &r.request;
  }

 private:
  const std::vector<std::unique_ptr<models::Replica>>& replicas_;
  const models::RequestPool& pool_;
  uint32_t offset_;
};

// A deployment: a contiguous range of replicas with its own policy instance.
struct Deployment {
  uint32_t offset = 0;
  uint32_t size = 0;
  std::unique_ptr<policies::Policy> policy;
  std::unique_ptr<DeploymentCacheOracle> oracle;
  std::unique_ptr<DeploymentQueueView> queues;
  Time interval = 0;  // the policy's control interval
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
        workload_(
            models::MakeRequestSource(scenario.workload, spec.seed, spec.qps, end_of_arrivals_)),
        metrics_(FromSeconds(scenario.warmup_s), scenario.replica_count(), scenario.slos,
                 TopTenants(workload_->tenant_shares())),
        oracle_(replicas_),
        refresh_(FromSeconds(scenario.signal_refresh_s)),
        deployment_rng_(spec.seed, "router.deployment"),
        timeline_(FromSeconds(scenario.series_interval_s)) {
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
    const PolicySpec& point_policy = scenario.policies[spec.policy_index];
    // Each deployment's policy expects its initial weight share of the traffic.
    double weight_sum = 0;
    for (const DeploymentSpec& d : scenario.deployments) weight_sum += d.WeightAt(0);
    uint32_t offset = 0;
    for (const DeploymentSpec& d : scenario.deployments) {
      const double share = weight_sum > 0 ? d.WeightAt(0) / weight_sum
                                          : 1.0 / static_cast<double>(scenario.deployments.size());
      policies::PolicyContext context;
      context.num_replicas = d.replicas;
      // Each deployment's policy draws from its own streams; the first keeps
      // the point's seed, so one deployment behaves as a plain cluster.
      context.seed = deployments_.empty() ? spec.seed : Combine(spec.seed, deployments_.size());
      context.cost_model = cost_model_.get();
      context.block_size_tokens = profile_.block_size_tokens;
      context.max_num_batched_tokens = scenario.scheduler.max_num_batched_tokens;
      context.kv_blocks_per_replica = kv_blocks;
      for (double key_share : workload_->key_shares()) {
        context.key_rates.push_back(key_share * spec.qps * share);
      }
      context.true_key_rates = [source = workload_.get(), scale = spec.qps * share](
                                   Time t, std::vector<double>* rates) {
        source->KeyLoadAt(t, rates);
        for (double& r : *rates) r *= scale;
      };
      // A deployment may run its own policy (a canary trying a new router);
      // the others run the point's.
      const PolicySpec& policy_spec = d.policy ? *d.policy : point_policy;
      const policies::PolicyInfo& info = policies::FindPolicy(policy_spec.name);
      Deployment deployment;
      deployment.offset = offset;
      deployment.size = d.replicas;
      deployment.policy = info.factory(policies::ResolveParams(info, policy_spec.params), context);
      deployment.oracle = std::make_unique<DeploymentCacheOracle>(oracle_, offset);
      deployment.queues = std::make_unique<DeploymentQueueView>(replicas_, pool_, offset);
      deployment.interval = deployment.policy->ControlInterval();
      for (uint32_t r = 0; r < d.replicas; ++r)
        deployment_of_.push_back(static_cast<uint32_t>(deployments_.size()));
      deployments_.push_back(std::move(deployment));
      offset += d.replicas;
    }
    if (deployments_.size() > 1 && scenario.lambda_h > 0 &&
        scenario.deployment_hit_estimate == Scenario::HitEstimate::kRouter) {
      for (const DeploymentSpec& d : scenario.deployments) {
        const uint64_t blocks = std::min<uint64_t>(uint64_t{d.replicas} * kv_blocks, UINT32_MAX);
        sent_.emplace_back(1, static_cast<uint32_t>(blocks), 0);
      }
    }
    weights_.resize(deployments_.size());
    hit_ratios_.resize(deployments_.size());
    scratch_.resize(deployments_.size());
    series_bucket_ = FromSeconds(scenario.series_interval_s);
  }

  analysis::PointResult Run() {
    if (workload_->Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
    for (uint32_t d = 0; d < deployments_.size(); ++d) {
      const Time interval = deployments_[d].interval;
      if (interval > 0 && interval < end_of_arrivals_)
        events_.Push(interval, EventKind::kControlTick, d);
    }
    for (const FailureEvent& f : scenario_.failures) {
      events_.Push(FromSeconds(f.at_s), EventKind::kReplicaFailure, f.replica);
      if (f.recover_after_s > 0) {
        events_.Push(FromSeconds(f.at_s + f.recover_after_s), EventKind::kReplicaRecovery,
                     f.replica);
      }
    }
    if (refresh_ > 0) events_.Push(0, EventKind::kSignalRefresh);
    events_.Push(warmup_, EventKind::kMeasureStart);
    events_.Push(end_of_arrivals_, EventKind::kMeasureEnd);

    uint64_t handled = 0;
    while (!events_.Empty() && events_.Top().time <= hard_stop_) {
      Event event = events_.Pop();
      ++handled;
      IntegrateInSystem(event.time);
      timeline_.ObserveUntil(event.time, loads_);
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
          if (!loads_[event.target].healthy) timeline_.OnRecovery(event.time);
          loads_[event.target].healthy = true;  // back with an empty cache
          break;
        case EventKind::kControlTick: {
          Deployment& d = deployments_[event.target];
          d.policy->OnControlTick(View(event.time, event.target));
          if (event.time + d.interval < end_of_arrivals_) {
            events_.Push(event.time + d.interval, EventKind::kControlTick, event.target);
          }
          break;
        }
        case EventKind::kMeasureStart:
          held_block_seconds_ -= TotalHeldBlockSeconds(event.time);
          break;
        case EventKind::kMeasureEnd:
          held_block_seconds_ += TotalHeldBlockSeconds(event.time);
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
    timeline_.ObserveUntil(events_.Now() + 1, loads_);  // the last event's instant too
    for (uint32_t slot = 0; slot < pool_.slot_count(); ++slot) {
      if (pool_[slot].in_use) metrics_.OnUnfinished(pool_[slot]);
    }

    analysis::PointResult result;
    result.policy = scenario_.policies[spec_.policy_index].label;
    result.qps = spec_.qps;
    result.seed = spec_.seed;
    metrics_.Summarize(&result);
    for (const auto& replica : replicas_) {
      result.prefill_tokens_computed += replica->counters().prefill_tokens_computed;
      result.cache_evictions += replica->kv_cache().counters().evictions;
      result.preemptions += replica->counters().preemptions;
      result.replica_failures += replica->counters().failures;
    }
    if (deployments_.size() == 1) {
      result.policy_stats = deployments_[0].policy->Stats();
    } else {
      for (uint32_t d = 0; d < deployments_.size(); ++d) {
        for (auto& [name, value] : deployments_[d].policy->Stats()) {
          result.policy_stats.emplace_back(scenario_.deployments[d].name + "." + name, value);
        }
        result.deployment_names.push_back(scenario_.deployments[d].name);
      }
      // Every deployment has a row in the last bucket too, as in the others.
      const uint32_t last = static_cast<uint32_t>(deployments_.size() - 1);
      if (!series_.empty()) {
        Sample(static_cast<Time>((series_.size() - 1) / deployments_.size()) * series_bucket_,
               last);
      }
      result.deployment_series = std::move(series_);
    }
    const double window = ToSeconds(end_of_arrivals_ - warmup_);
    result.mean_in_system = in_system_seconds_ / window;
    result.mean_held_kv_blocks =
        held_block_seconds_ / window / static_cast<double>(replicas_.size());
    result.series = timeline_.Finish();
    result.simulated_s = ToSeconds(events_.Now());
    result.events = handled;
    return result;
  }

  void OnAdmitted(uint32_t slot, Time) override {
    const models::InFlightRequest& r = pool_[slot];
    metrics_.OnAdmitted(r);
    timeline_.OnAdmitted(r.request.arrival, r.request.prompt_tokens, r.hit_tokens);
    if (deployments_.size() > 1) {
      analysis::DeploymentSample& sample = Sample(r.request.arrival, deployment_of_[r.replica]);
      sample.prompt_tokens += r.request.prompt_tokens;
      sample.hit_tokens += r.hit_tokens;
    }
  }
  void OnFirstToken(uint32_t slot, Time now) override {
    const models::InFlightRequest& r = pool_[slot];
    PolicyOf(r.replica).OnFirstToken(r.request, Local(r.replica), now);
  }
  void OnCompleted(uint32_t slot, Time now) override {
    const models::InFlightRequest& r = pool_[slot];
    metrics_.OnCompleted(r, now);
    timeline_.OnCompleted(now);
    PolicyOf(r.replica).OnComplete(r.request, Local(r.replica), now);
    pool_.Release(slot);
  }

 private:
  // Deployment d's replicas, indexed from 0.
  policies::ClusterView View(Time now, uint32_t d) {
    // With polling, loads come from the last poll; health is always current
    // (a failed replica refuses connections at once).
    const Deployment& dep = deployments_[d];
    std::span<const models::ReplicaLoad> loads = loads_;
    if (refresh_ > 0) {
      for (size_t r = 0; r < loads_.size(); ++r) seen_loads_[r].healthy = loads_[r].healthy;
      loads = seen_loads_;
    }
    return policies::ClusterView{loads.subspan(dep.offset, dep.size), now, dep.oracle.get(),
                                 dep.queues.get()};
  }

  policies::Policy& PolicyOf(uint32_t replica) {
    return *deployments_[deployment_of_[replica]].policy;
  }
  uint32_t Local(uint32_t replica) const {
    return replica - deployments_[deployment_of_[replica]].offset;
  }

  // Seed 000's first level: P_d ∝ w_d(now)·2^(λ_h·H_d) over deployments with
  // a healthy replica, H_d the request's best prefix hit ratio there (on its
  // replicas' caches, or in the router's record of what it sent there). Returns
  // deployments_.size() when no deployment with weight > 0 is up. One
  // deployment takes every request without a draw.
  uint32_t PickDeployment(const models::Request& request, Time now) {
    const uint32_t count = static_cast<uint32_t>(deployments_.size());
    const double now_s = ToSeconds(now);
    const auto& chain = request.block_hashes;
    for (uint32_t d = 0; d < count; ++d) {
      const Deployment& dep = deployments_[d];
      bool up = false;
      uint32_t best = 0;
      for (uint32_t r = dep.offset; r < dep.offset + dep.size; ++r) {
        if (!loads_[r].healthy) continue;
        up = true;
        if (count > 1 && scenario_.lambda_h > 0 && !chain.empty() && sent_.empty()) {
          best = std::max(best, oracle_.CachedPrefixBlocks(r, chain));
        }
      }
      if (up && !sent_.empty()) best = sent_[d].Depth(0, chain, now);
      weights_[d] = up ? scenario_.deployments[d].WeightAt(now_s) : 0;
      hit_ratios_[d] =
          chain.empty() ? 0 : static_cast<double>(best) / static_cast<double>(chain.size());
    }
    if (count == 1) return AnyHealthy() ? 0 : count;  // its weight does not matter
    return static_cast<uint32_t>(policies::ChooseDeployment(
        weights_, hit_ratios_, scenario_.lambda_h, deployment_rng_, scratch_));
  }

  // Counts the request for deployment d, and for each deployment whether the
  // prompt was wholly cached elsewhere (hit_ratios_ are this request's).
  void RecordChoice(Time arrival, uint32_t chosen) {
    ++Sample(arrival, chosen).requests;
    for (uint32_t d = 0; d < deployments_.size(); ++d) {
      bool elsewhere = false;
      for (uint32_t o = 0; o < deployments_.size(); ++o) elsewhere |= o != d && hit_ratios_[o] == 1;
      if (!elsewhere) continue;
      analysis::DeploymentSample& sample = Sample(arrival, d);
      ++sample.hit_elsewhere;
      if (d == chosen) ++sample.hit_elsewhere_taken;
      if (hit_ratios_[d] > 0) continue;
      ++sample.cold_hit_elsewhere;
      if (d == chosen) ++sample.cold_hit_elsewhere_taken;
    }
  }

  analysis::DeploymentSample& Sample(Time arrival, uint32_t d) {
    const uint64_t bucket = static_cast<uint64_t>(arrival / series_bucket_);
    const size_t index = bucket * deployments_.size() + d;
    while (series_.size() <= index) {
      analysis::DeploymentSample sample;
      sample.deployment = static_cast<uint32_t>(series_.size() % deployments_.size());
      sample.start_s =
          static_cast<double>(series_.size() / deployments_.size()) * scenario_.series_interval_s;
      series_.push_back(sample);
    }
    return series_[index];
  }

  void OnArrival(Time now) {
    uint32_t slot = pool_.Acquire();
    models::InFlightRequest& r = pool_[slot];
    std::swap(r.request, next_request_);  // swaps buffers: no allocation in steady state
    metrics_.OnArrival(r.request);
    timeline_.OnArrival(r.request.arrival);
    Dispatch(slot, now);
    if (workload_->Next(&next_request_)) events_.Push(next_request_.arrival, EventKind::kArrival);
  }

  // Routes the request in `slot` and queues it on the chosen replica.
  void Dispatch(uint32_t slot, Time now) {
    models::InFlightRequest& r = pool_[slot];
    const uint32_t d = PickDeployment(r.request, now);
    if (d == deployments_.size()) {
      metrics_.OnFailed(r.request);
      pool_.Release(slot);
      return;
    }
    Deployment& dep = deployments_[d];
    const uint32_t local = dep.policy->Route(r.request, View(now, d));
    const uint32_t target = dep.offset + local;
    r.replica = target;
    if (deployments_.size() > 1) RecordChoice(r.request.arrival, d);
    if (replicas_[target]->Enqueue(slot)) {
      dep.policy->OnDispatch(r.request, local, now);
      if (!sent_.empty()) sent_[d].Record(0, r.request.block_hashes, now);
      metrics_.OnDispatched(r.request, target);
      StartIteration(target, now);
      ApplyMoves(d, now);
    } else {
      metrics_.OnRejected(r.request);
      pool_.Release(slot);
    }
  }

  // The queued requests deployment d's policy moves after a dispatch. A moved
  // request keeps its slot, arrival time and metrics; `replica_requests`
  // still counts it where it was first dispatched.
  void ApplyMoves(uint32_t d, Time now) {
    Deployment& dep = deployments_[d];
    moves_.clear();
    dep.policy->Rebalance(View(now, d), &moves_);
    for (const policies::QueueMove& move : moves_) {
      assert(move.from < dep.size && move.to < dep.size && move.from != move.to);
      const uint32_t to = dep.offset + move.to;
      assert(loads_[to].healthy);
      const uint32_t slot = replicas_[dep.offset + move.from]->WithdrawWaiting(move.request_id);
      if (slot == models::Replica::kNoSlot) continue;
      models::InFlightRequest& r = pool_[slot];
      dep.policy->OnComplete(r.request, move.from, now);  // it no longer waits there
      r.replica = to;
      if (!replicas_[to]->Enqueue(slot)) {  // replicas share one pool size: cannot happen
        metrics_.OnRejected(r.request);
        pool_.Release(slot);
        continue;
      }
      dep.policy->OnDispatch(r.request, move.to, now);
      StartIteration(to, now);
    }
  }

  // A failed replica loses its cache and its work; each request it held is
  // retried on another replica up to the scenario's retry limit, else failed.
  void OnReplicaFailure(uint32_t replica, Time now) {
    if (!loads_[replica].healthy) return;
    loads_[replica].healthy = false;
    timeline_.OnFailure(now);
    iteration_event_[replica] = UINT64_MAX;  // its iteration in flight never finishes
    dropped_.clear();
    replicas_[replica]->Fail(now, &dropped_);
    for (uint32_t slot : dropped_) {
      models::InFlightRequest& r = pool_[slot];
      PolicyOf(replica).OnComplete(r.request, Local(replica), now);  // it no longer runs there
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

  double TotalHeldBlockSeconds(Time now) const {
    double total = 0;
    for (const auto& replica : replicas_) total += replica->HeldBlockSeconds(now);
    return total;
  }

  // Accumulates requests-in-system × time over [warm-up, end of arrivals]: the
  // L of Little's law.
  void IntegrateInSystem(Time now) {
    Time from = std::max(last_integrated_, warmup_);
    Time to = std::min(now, end_of_arrivals_);
    if (to > from) {
      double dt = ToSeconds(to - from);
      in_system_seconds_ += static_cast<double>(pool_.in_flight()) * dt;
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
  std::unique_ptr<models::RequestSource> workload_;
  analysis::PointMetricsCollector metrics_;
  models::RequestPool pool_;
  std::vector<models::ReplicaLoad> loads_;
  std::vector<std::unique_ptr<models::Replica>> replicas_;
  std::vector<uint64_t> iteration_event_;   // per replica: sequence of its pending iteration
  std::vector<uint32_t> dropped_;           // scratch for failures
  std::vector<policies::QueueMove> moves_;  // scratch for a policy's queue moves
  ReplicaCacheOracle oracle_;
  Time refresh_;                                 // signal poll period; 0 = live
  std::vector<models::ReplicaLoad> seen_loads_;  // the router's last poll
  std::vector<Deployment> deployments_;
  std::vector<uint32_t> deployment_of_;  // per replica
  RandomStream deployment_rng_;
  std::vector<double> weights_, hit_ratios_, scratch_;  // per deployment, per request
  // deployment_hit_estimate: router: per deployment, the blocks the router sent
  // there (one LRU of its total KV blocks); empty otherwise.
  std::vector<policies::RouterPrefixIndex> sent_;
  analysis::TimeSeriesRecorder timeline_;
  Time series_bucket_ = 0;
  std::vector<analysis::DeploymentSample> series_;  // bucket-major, then deployment
  EventQueue events_;
  models::Request next_request_;
};

}  // namespace

analysis::PointResult RunPoint(const Scenario& scenario, const PointSpec& spec) {
  ClusterSimulation simulation(scenario, spec);
  return simulation.Run();
}

}  // namespace kvroute::sim
