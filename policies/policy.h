// The routing policy interface (DESIGN.md, "Policy"). A policy sees a read-only
// view of the cluster and chooses a replica for each request. Policies that in
// reality keep their own state (hash rings, CacheRoute's table) keep it here,
// updated through the dispatch, completion and control-tick callbacks.
#ifndef KVROUTE_POLICIES_POLICY_H_
#define KVROUTE_POLICIES_POLICY_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "models/replica_load.h"
#include "models/request.h"
#include "sim/core/time.h"

namespace kvroute::policies {

// Read-only access to the replicas' real prefix caches (DESIGN.md, "Policy":
// the exact cached prefix length, only where a policy is defined that way, or
// to separate a policy from its own cache estimate). Implemented by the
// simulation; policies never see the replicas themselves.
class CacheOracle {
 public:
  virtual ~CacheOracle() = default;
  // Leading blocks of `chain` (chained block hashes) cached on `replica`.
  virtual uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const = 0;
  // CachedPrefixBlocks of every replica, out[r] for replica r: policies that
  // ask about all replicas ask once. REQUIRES: out.size() == replicas.
  virtual void CachedPrefixBlocksAll(std::span<const uint64_t> chain,
                                     std::span<uint32_t> out) const {
    for (uint32_t r = 0; r < out.size(); ++r) out[r] = CachedPrefixBlocks(r, chain);
  }
  // Blocks of `chain` from `from` on that `replica`'s host-memory KV tier
  // holds in a row (cluster.kv_tiers): what a hit there would load after an
  // HBM hit of `from` blocks. 0 without a tier.
  virtual uint32_t HostTierBlocks(uint32_t /*replica*/, std::span<const uint64_t> /*chain*/,
                                  uint32_t /*from*/) const {
    return 0;
  }
  // The same for the local-SSD tier below host memory: blocks from `from`
  // (past the HBM and host-memory run) it holds in a row. 0 without one.
  virtual uint32_t StorageTierBlocks(uint32_t /*replica*/, std::span<const uint64_t> /*chain*/,
                                     uint32_t /*from*/) const {
    return 0;
  }
};

// Read-only access to the requests queued on each replica, for policies that
// move queued work between replicas (DualMap's hotspot rebalancing, whose
// router holds its own per-instance queues). Implemented by the simulation.
class QueueView {
 public:
  virtual ~QueueView() = default;
  // Requests in `replica`'s waiting queue, in queue order.
  virtual uint32_t QueuedCount(uint32_t replica) const = 0;
  // The i-th of them, or null if it was scheduled before (a preempted request
  // waiting to be recomputed), which cannot be moved. REQUIRES: i < QueuedCount.
  virtual const models::Request* Queued(uint32_t replica, uint32_t i) const = 0;
};

// A queued, never scheduled request to take from replica `from` and queue on `to`.
struct QueueMove {
  uint64_t request_id = 0;
  uint32_t from = 0;
  uint32_t to = 0;
};

struct ClusterView {
  std::span<const models::ReplicaLoad> replicas;
  sim::Time now = 0;
  const CacheOracle* cache = nullptr;  // null: no exact cache state offered
  const QueueView* queues = nullptr;   // null: queued requests not offered

  uint32_t size() const { return static_cast<uint32_t>(replicas.size()); }
  bool healthy(uint32_t r) const { return replicas[r].healthy; }
};

// What a policy knows when it is created for one (load, seed) point.
struct PolicyContext {
  uint32_t num_replicas = 0;
  // Expected request rate of each key at this point's load, req/s: the
  // workload's configured shares times the offered QPS.
  std::vector<double> key_rates;
  uint64_t seed = 0;  // the point's seed; a policy's stream is named after it
  // The replicas' iteration-time model, for policies that estimate work in
  // seconds; null means the default profile's roofline model. Outlives the policy.
  const models::CostModel* cost_model = nullptr;
  int block_size_tokens = 16;
  int64_t max_num_batched_tokens = 8192;  // the replicas' per-iteration token budget
  uint32_t kv_blocks_per_replica = 0;     // KV pool size; 0 when unknown
  // A pool of several GPU kinds: each replica's own cost model and token
  // budget (its deployment's), for policies that estimate each replica's work
  // (CostEstimator's *On methods); empty: every replica is cost_model's with
  // max_num_batched_tokens. Outlive the policy.
  std::vector<const models::CostModel*> replica_cost_models;
  std::vector<int64_t> replica_batched_tokens;
  // The workload's true per-key rates at a simulated time, req/s on the scale
  // of key_rates (drift and load schedule included), for a policy that is
  // told them rather than measuring them; empty when not offered.
  std::function<void(sim::Time, std::vector<double>*)> true_key_rates;
};

// Why a policy's last Route chose its replica, for per-request output (the
// request CSV's route_reason and route_score). `reason` is a word from the
// policy's fixed vocabulary, a static string (never allocated, never freed);
// null when the policy gave none. `score` is the number the policy's own
// algorithm ranked or placed the chosen replica by, NaN when it has none; each
// policy's file says what its reasons and score mean.
struct RouteExplanation {
  static constexpr double kNoScore = std::numeric_limits<double>::quiet_NaN();
  const char* reason = nullptr;
  double score = kNoScore;
};

class Policy {
 public:
  virtual ~Policy() = default;

  // Chooses the replica that serves `request`.
  // REQUIRES: at least one replica in `view` is healthy. ENSURES: the result is healthy.
  virtual uint32_t Route(const models::Request& request, const ClusterView& view) = 0;
  // Why the last Route chose its replica: read right after Route, before the
  // next call replaces it.
  const RouteExplanation& LastRoute() const { return last_route_; }

  virtual void OnDispatch(const models::Request& /*request*/, uint32_t /*replica*/,
                          sim::Time /*now*/) {}
  // A request Route sent to `replica` that will not reach its queue there:
  // rejected (too large for its KV pool), or lost between routing and the
  // queue (its replica failed while it was in the front end or its KV in
  // transfer; a retry routes it again). For policies that count a request
  // from Route rather than from OnDispatch; never follows OnDispatch of the
  // same routing.
  virtual void OnNotDispatched(const models::Request& /*request*/, uint32_t /*replica*/,
                               sim::Time /*now*/) {}
  // The request's first output token, on `replica`, at `now` (before its
  // OnComplete), for policies that learn from measured TTFT and TPOT.
  virtual void OnFirstToken(const models::Request& /*request*/, uint32_t /*replica*/,
                            sim::Time /*now*/) {}
  virtual void OnComplete(const models::Request& /*request*/, uint32_t /*replica*/,
                          sim::Time /*now*/) {}

  // Called after each request is dispatched (retries included). Appends to `moves`
  // the queued requests the policy wants moved. The simulation applies them in
  // order: a request still queued and never scheduled leaves `from`
  // (OnComplete there, as for a failed replica's requests) and joins the tail
  // of `to` (OnDispatch there); other moves are skipped. REQUIRES: each `to`
  // is healthy.
  virtual void Rebalance(const ClusterView& /*view*/, std::vector<QueueMove>* /*moves*/) {}

  // Period of OnControlTick; 0 means the policy has none.
  virtual sim::Time ControlInterval() const { return 0; }
  virtual void OnControlTick(const ClusterView& /*view*/) {}

  // Named statistics reported with each point (e.g. a planner's admitted keys).
  virtual std::vector<std::pair<std::string, double>> Stats() const { return {}; }

 protected:
  // Route states its reason, a string literal, and its score if it has one.
  void Explain(const char* reason, double score = RouteExplanation::kNoScore) {
    last_route_ = {reason, score};
  }

 private:
  RouteExplanation last_route_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_POLICY_H_
