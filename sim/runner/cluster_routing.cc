// What happens to a request between its arrival and its engine: routing
// (two-level, or disaggregated through pd_router.h), retries after replica
// failures, and the queue moves of rebalancing policies.
#include <cassert>

#include "sim/runner/cluster_simulation_internal.h"

namespace kvroute::sim {

// Deployment d's replicas, indexed from 0.
policies::ClusterView ClusterSimulation::View(Time now, uint32_t d) {
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

void ClusterSimulation::OnArrival(const Event& event) {
  const uint32_t slot = pool_.Acquire();
  models::InFlightRequest& r = pool_[slot];
  if (tags_.size() <= slot) tags_.resize(slot + 1);
  if (pd_ && pd_state_.size() <= slot) pd_state_.resize(slot + 1);
  if (!arrivals_.Arrive(event, &r.request, &tags_[slot], events_)) {
    pool_.Release(slot);
    return;
  }
  metrics_.OnArrival(r.request);
  timeline_.OnArrival(r.request.arrival);
  Dispatch(slot, event.time);
}

// Routes the request in `slot`; it reaches the chosen replica's engine once
// it has passed the serving front end.
void ClusterSimulation::Dispatch(uint32_t slot, Time now) {
  models::InFlightRequest& r = pool_[slot];
  r.prefill_only = false;  // a retry starts over
  r.remote_tokens = 0;
  bool routed;
  if (pd_) {
    routed = RouteDisaggregated(slot, now);
  } else {
    const uint32_t d = router_.Pick(r.request, now, loads_);
    routed = d < router_.count();
    if (routed) {
      Deployment& dep = deployments_[d];
      r.replica = dep.offset + dep.policy->Route(r.request, View(now, d));
      r.route_reason = dep.policy->LastRoute().reason;  // the choice inside deployment d
      r.route_score = dep.policy->LastRoute().score;
      router_.OnRouted(r.request, d);
    }
  }
  if (!routed) {
    r.route_reason = nullptr;  // never routed (a retry's earlier reason no longer holds)
    r.route_score = policies::RouteExplanation::kNoScore;
    metrics_.OnFailed(r.request);
    Release(slot, analysis::RequestRecord::Outcome::kFailed, now);
    return;
  }
  const Time frontend = frontend_latency_[r.replica];
  if (frontend > 0) {
    events_.Push(now + frontend, EventKind::kEnqueue, slot);
  } else {
    Enqueue(slot, now);
  }
}

bool ClusterSimulation::RouteDisaggregated(uint32_t slot, Time now) {
  models::InFlightRequest& r = pool_[slot];
  PdState& state = pd_state_[slot];
  state = PdState{};  // a new request, or a retry that starts over
  auto healthy = [&](const Deployment& dep) {
    for (uint32_t i = dep.offset; i < dep.offset + dep.size; ++i) {
      if (loads_[i].healthy) return true;
    }
    return false;
  };
  Deployment& decode = deployments_[pd_->decode_pool()];
  if (!healthy(decode)) return false;
  const uint32_t local = decode.policy->Route(r.request, View(now, pd_->decode_pool()));
  state.decode_replica = decode.offset + local;
  r.replica = state.decode_replica;
  r.route_reason = decode.policy->LastRoute().reason;  // the record's replica is the decode one
  r.route_score = decode.policy->LastRoute().score;
  Deployment& prefill = deployments_[pd_->prefill_pool()];
  // The decider reads the decode replica's cache as the decode policy does.
  const uint32_t cached = decode.oracle->CachedPrefixBlocks(local, r.request.hashes.prompt());
  const bool split = pd_->Split(r.request, cached) && healthy(prefill);
  pd_->OnDecided(split);
  state.split = split;
  if (split) {
    state.prefill_replica =
        prefill.offset + prefill.policy->Route(r.request, View(now, pd_->prefill_pool()));
    r.replica = state.prefill_replica;
    r.prefill_only = true;
  }
  return true;
}

// The prefill replica sampled the request's first token: its KV goes to the
// decode replica, all but the last prompt token, less what that replica
// already holds.
void ClusterSimulation::OnPrefilled(uint32_t slot, Time now) {
  models::InFlightRequest& r = pool_[slot];
  PdState& state = pd_state_[slot];
  const uint32_t to = state.decode_replica;
  r.prefill_only = false;
  r.generated_tokens = 0;
  r.computed_tokens = 0;
  r.first_token_time = kNever;
  r.replica = to;
  if (!loads_[to].healthy) {
    NotDispatched(slot, now);
    OnLost(slot, now);
    return;
  }
  const uint32_t sent = r.request.prompt_tokens - 1;
  const uint32_t held =
      replicas_[to]->kv_cache().MatchPrefix(r.request.hashes.prompt()) *
      static_cast<uint32_t>(scenario_.resolved_profile.ResolvedEngine().block_size_tokens);
  const uint32_t tokens = sent > held ? sent - held : 0;
  r.remote_tokens = sent;
  state.prefill_failures = replicas_[state.prefill_replica]->counters().failures;
  state.kv_sent = now;
  events_.Push(pd_->Transfer(state.prefill_replica, to, tokens, now), EventKind::kKvTransferDone,
               slot);
}

void ClusterSimulation::OnTransferred(uint32_t slot, Time now) {
  PdState& state = pd_state_[slot];
  state.kv_arrived = now;
  // A replica that failed while the KV was in flight loses it: start over.
  if (!loads_[state.decode_replica].healthy ||
      replicas_[state.prefill_replica]->counters().failures != state.prefill_failures) {
    NotDispatched(slot, now);
    OnLost(slot, now);
    return;
  }
  Enqueue(slot, now);
}

// Queues the request in `slot` on the replica it was routed to.
void ClusterSimulation::Enqueue(uint32_t slot, Time now) {
  models::InFlightRequest& r = pool_[slot];
  const uint32_t d = deployment_of_[r.replica];
  Deployment& dep = deployments_[d];
  const uint32_t local = Local(r.replica);
  if (!loads_[r.replica].healthy) {  // it failed while the request was in the front end
    NotDispatched(slot, now);
    OnLost(slot, now);
    return;
  }
  if (replicas_[r.replica]->Enqueue(slot, now)) {
    dep.policy->OnDispatch(r.request, local, now);
    if (!pd_) router_.OnQueued(r.request, d, now);
    // Each request is counted once, where its output is generated (in a
    // disaggregated cluster, the decode replica).
    if (!r.prefill_only) metrics_.OnDispatched(r.request, r.replica);
    StartIteration(r.replica, now);
    ForgetHashesIfQueuedDeep(slot);
    ApplyMoves(d, now);
  } else {
    NotDispatched(slot, now);
    metrics_.OnRejected(r.request);
    Release(slot, analysis::RequestRecord::Outcome::kRejected, now);
  }
}

// Tells the policies that routed the request in `slot` that it will not reach
// the queue they sent it to: its replica's, and in a split request's prefill
// stage also the decode replica's, which routed it first and would have seen
// it dispatched only after the transfer.
void ClusterSimulation::NotDispatched(uint32_t slot, Time now) {
  const models::InFlightRequest& r = pool_[slot];
  PolicyOf(r.replica).OnNotDispatched(r.request, Local(r.replica), now);
  if (pd_ && r.prefill_only) {
    const uint32_t decode = pd_state_[slot].decode_replica;
    PolicyOf(decode).OnNotDispatched(r.request, Local(decode), now);
  }
}

// A request that waits behind many others (PointSpec) will not have its blocks
// read by its engine for many prefills; until then it keeps its segments,
// not its hashes (RequestHashes::Forget). Where a policy read them to route
// (dualmap, preble, the prefix indexes) and the run is overloaded, those
// hashes were most of the run's memory, each new request faulting in fresh
// pages for its own; a request that is admitted later is hashed again, from
// the hasher's memory for the segments that repeat. No result changes.
void ClusterSimulation::ForgetHashesIfQueuedDeep(uint32_t slot) {
  models::InFlightRequest& r = pool_[slot];
  if (r.ever_admitted || replicas_[r.replica]->waiting_count() <= spec_.forget_hashes_behind)
    return;
  r.request.hashes.Forget();
}

// A request whose replica is lost is retried on another one up to the
// scenario's retry limit, else failed.
void ClusterSimulation::OnLost(uint32_t slot, Time now) {
  models::InFlightRequest& r = pool_[slot];
  if (r.retries >= scenario_.retry_limit) {
    metrics_.OnFailed(r.request);
    Release(slot, analysis::RequestRecord::Outcome::kFailed, now);
    return;
  }
  ++r.retries;
  metrics_.OnRetried(r.request);
  Dispatch(slot, now);
}

// The queued requests deployment d's policy moves after a dispatch. A moved
// request keeps its slot, arrival time and metrics; `replica_requests`
// still counts it where it was first dispatched.
void ClusterSimulation::ApplyMoves(uint32_t d, Time now) {
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
    // Transferred KV stays where it arrived: the new replica computes it.
    r.remote_tokens = 0;
    if (pd_)
      (r.prefill_only ? pd_state_[slot].prefill_replica : pd_state_[slot].decode_replica) = to;
    r.route_reason = "rebalanced";  // the policy moved it off its routed replica
    r.route_score = policies::RouteExplanation::kNoScore;
    if (!replicas_[to]->Enqueue(slot, now)) {  // replicas share one pool size: cannot happen
      metrics_.OnRejected(r.request);
      Release(slot, analysis::RequestRecord::Outcome::kRejected, now);
      continue;
    }
    dep.policy->OnDispatch(r.request, move.to, now);
    StartIteration(to, now);
  }
}

// A failed replica loses its cache and its work; each request it held is
// retried on another replica up to the scenario's retry limit, else failed.
void ClusterSimulation::OnReplicaFailure(uint32_t replica, Time now) {
  if (failed_[replica]) return;
  failed_[replica] = 1;
  loads_[replica].healthy = false;
  timeline_.OnFailure(now);
  iteration_event_[replica] = UINT64_MAX;  // its iteration in flight never finishes
  dropped_.clear();
  replicas_[replica]->Fail(now, &dropped_);
  for (uint32_t slot : dropped_) {
    PolicyOf(replica).OnComplete(pool_[slot].request, Local(replica),
                                 now);  // it no longer runs there
    OnLost(slot, now);
  }
  if (scaler_) scaler_->OnIterationDone(replica, now);  // a draining one is now idle: off
}

}  // namespace kvroute::sim
