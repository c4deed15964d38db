// One serving destination (DESIGN.md, "Replica"): a KV block pool with a prefix
// cache, and a continuous-batching scheduler in the style of vLLM's engine:
//  - each iteration has a token budget (max_num_batched_tokens) shared by
//    decodes and chunked prefills; running decodes are scheduled first, then
//    running prefills continue, then waiting requests are admitted in FCFS
//    order while the budget and the cap on running sequences (max_num_seqs)
//    allow;
//  - KV blocks are allocated as tokens are scheduled: a request's cached prefix
//    and first chunk at admission, further blocks as later chunks and decodes
//    need them. A waiting request whose blocks cannot be had waits, and so does
//    everything behind it (FCFS);
//  - when a running request needs a block and none can be freed, the newest
//    running request is preempted by recompute: its blocks are released (full
//    prompt blocks stay in the cache) and it returns to the head of the queue.
//    An iteration that preempted admits nothing new (vLLM v1);
//  - prefix hits cover full blocks only, and never the last token to compute;
//    the served hit is counted when the request is first scheduled, not when
//    it is routed; full blocks become cacheable when the chunk or decode that
//    computes them is scheduled (prompt blocks, and with
//    cache_generated_tokens the blocks generated tokens complete), and return
//    to the cache on completion. A request recomputed after preemption hits
//    its own generated blocks too.
// TTFT ends with the iteration that completes the prefill (it samples the first
// token); E2E with the iteration that samples the last token.
//
// Coasting decodes. Most iterations leave a decoding request exactly as
// before but one token longer: it needs no new block, completes no block to
// register, and does not finish. Such a request coasts: it is scheduled in
// every iteration as part of one aggregate (its count and the sum of its
// contexts, all the cost model reads of it) and its token counts are brought
// up to date only at the iteration where it needs a block, fills one or
// finishes, or when it is preempted. Those iterations visit it as before and
// in the same order, so every allocation, registration, eviction, preemption,
// observer call and load signal is the same as visiting every decode: exact,
// and tested against that (coast_decodes = false). It needs every running
// decode to be scheduled in every iteration, which holds when the sequence
// cap is within the token budget (vLLM's defaults: 256 and 8,192); otherwise
// nothing coasts.
//
// With a host-memory tier (SchedulerConfig::kv_tier, kv_tier.h), the blocks of
// a request's chain that follow its HBM hit and are held in DRAM are loaded at
// admission instead of computed, and the iteration that first schedules the
// request waits for the load before its forward pass (LMCache's vLLM
// connector without layer-wise pipelining; docs/KV_TIERS.md says why). With a
// local-SSD tier below DRAM (SchedulerConfig::ssd_tier), the blocks after the
// DRAM run that the SSD holds are read into DRAM and copied on to HBM in the
// same load.
#ifndef KVROUTE_MODELS_REPLICA_H_
#define KVROUTE_MODELS_REPLICA_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "models/cost_model.h"
#include "models/kv_cache.h"
#include "models/replica_load.h"
#include "models/request.h"
#include "sim/core/ring_deque.h"
#include "sim/core/time.h"

namespace kvroute::models {

struct SchedulerConfig {
  int max_num_batched_tokens = 8192;                  // per-iteration token budget (vLLM's name)
  int max_num_seqs = 256;                             // cap on running sequences (vLLM's name)
  EvictionOrder eviction = EvictionOrder::kRadixLru;  // see kv_cache.h
  // Full blocks of generated tokens join the prefix cache as their KV is
  // computed, as vLLM v1 and SGLang do; false caches prompt blocks only.
  bool cache_generated_tokens = true;
  // The engine forms each batch while the previous one runs (vLLM's
  // AsyncScheduler): a request that reaches a busy replica can join only the
  // batch after the next. An idle replica starts at once.
  bool async_scheduling = false;
  // A host-memory KV tier below the HBM pool; capacity 0 (the default): none,
  // and no per-block work at all.
  KvTierConfig kv_tier{};
  // A local-SSD tier below the host tier (capacity 0: none); it spills and
  // loads through the host tier, so it needs one.
  KvTierConfig ssd_tier{};
  // Decodes between the iterations that can change them coast (replica.h,
  // "Coasting decodes"): the same results, without visiting each one each
  // iteration. false visits every decode every iteration: the oracle the
  // differential test compares against.
  bool coast_decodes = true;
};

// Receives what happens to requests inside a replica.
class ReplicaObserver {
 public:
  virtual ~ReplicaObserver() = default;
  // First admission only; the served hit is known here.
  virtual void OnAdmitted(uint32_t slot, sim::Time now) = 0;
  virtual void OnFirstToken(uint32_t slot, sim::Time now) = 0;
  // The replica no longer refers to `slot`; the observer may release it.
  virtual void OnCompleted(uint32_t slot, sim::Time now) = 0;
};

struct ReplicaCounters {
  uint64_t admitted = 0;  // admissions, re-admissions after preemption included
  uint64_t completed = 0;
  uint64_t preemptions = 0;  // by recompute
  uint64_t failures = 0;
  uint64_t iterations = 0;
  uint64_t prefill_tokens_computed = 0;  // prompt and recomputed tokens, not decodes
  uint64_t max_batch_tokens = 0;         // largest iteration seen, for budget checks
};

class Replica {
 public:
  // `pool` and `load` must outlive the replica.
  Replica(uint32_t id, const CostModel& cost_model, SchedulerConfig config, uint32_t kv_blocks,
          int block_size_tokens, RequestPool& pool, ReplicaLoad& load);

  // Blocks a request needs at its largest: its prompt and its whole output.
  uint32_t BlocksNeeded(const Request& request) const;

  // Queues the request in `slot` at `now`. Returns false, queuing nothing, if
  // it could never fit in this replica's KV pool.
  bool Enqueue(uint32_t slot, sim::Time now);

  // Takes the request `request_id` out of the waiting queue if it has never
  // been scheduled (it holds no KV and no progress), so a router can queue it
  // elsewhere. Returns its slot, or kNoSlot if it is not waiting here or was
  // scheduled before (a preempted request). The pool slot stays the caller's.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  uint32_t WithdrawWaiting(uint64_t request_id);

  // The waiting queue, front first: slots of queued requests.
  uint32_t waiting_count() const { return static_cast<uint32_t>(waiting_.size()); }
  uint32_t waiting_slot(uint32_t i) const { return waiting_[i]; }

  // Forms the next batch at `now` and returns its duration; 0 means idle.
  // Reports the requests it admits. REQUIRES: !in_iteration().
  sim::Time StartIteration(sim::Time now, ReplicaObserver& observer);

  // Applies the outcome of the iteration started last.
  // REQUIRES: in_iteration().
  void FinishIteration(sim::Time now, ReplicaObserver& observer);

  // The replica fails: it drops its cache, its running work and its queue.
  // Appends the slots of the requests it held (running, then waiting, in
  // order) to `dropped`; their KV is released and their progress reset, so the
  // caller can retry them elsewhere. The iteration in flight is abandoned.
  void Fail(sim::Time now, std::vector<uint32_t>* dropped);

  // The replica starts afresh (an autoscaler's new replica): its cache is
  // empty. REQUIRES: it holds no request.
  void StartCold(sim::Time now);
  bool idle() const { return running_.empty() && waiting_.empty() && !in_iteration_; }

  // ∫ (KV blocks pinned or reserved by running requests) dt from time 0 to
  // `now`, in block-seconds: the working set that cached prefixes cannot use.
  // REQUIRES: `now` is not earlier than the replica's last change.
  double HeldBlockSeconds(sim::Time now) const;

  bool in_iteration() const { return in_iteration_; }
  const KvCache& kv_cache() const { return kv_; }
  // The filter counts the KV cache's nodes from now on (first_block_filter.h).
  void AttachFirstBlockFilter(FirstBlockFilter* filter) { kv_.AttachFirstBlockFilter(filter); }
  // Publishes the KV cache's stored/removed/cleared events (kv_events.h).
  void set_kv_event_listener(KvEventListener* listener) { kv_.set_event_listener(listener); }
  const HostKvTier* host_tier() const { return tier_.get(); }     // null: HBM only
  const HostKvTier* ssd_tier() const { return ssd_tier_.get(); }  // null: no SSD tier
  const ReplicaCounters& counters() const { return counters_; }
  const ReplicaLoad& load() const { return load_; }
  uint32_t id() const { return id_; }

 private:
  struct BatchEntry {
    uint32_t slot;
    uint32_t running_index;  // in running_: the batch is formed and run without reordering it
    uint32_t tokens;
    uint32_t context;  // tokens before these: the decode's or the chunk's attention context
    bool decode;
  };
  // A running request. A coasting one (wake > step_) has been scheduled in
  // every iteration since `since`; its InFlightRequest counts are those it had
  // then, and `wake` is the iteration where it must be visited again.
  struct RunningEntry {
    uint32_t slot;
    uint64_t since = 0;
    uint64_t wake = 0;  // <= step_: visited every iteration
    bool coasting(uint64_t step) const { return wake > step; }
  };

  uint32_t BlocksFor(uint32_t tokens) const { return FullBlocks(tokens + block_size_ - 1); }
  // tokens / block size, by a shift for the usual power-of-two sizes: a
  // division per request per iteration is a large part of the decode loop.
  uint32_t FullBlocks(uint32_t tokens) const {
    return block_shift_ < 32 ? tokens >> block_shift_ : tokens / block_size_;
  }
  // The blocks of `r` that may be cached: its prompt's, then its output's.
  BlockChain CacheableChain(const InFlightRequest& r) const;
  // Makes sure `slot` holds blocks for `tokens` tokens, preempting the newest
  // running requests if it must. False if `slot` itself had to be preempted.
  bool EnsureBlocks(uint32_t slot, uint32_t tokens);
  void Preempt(uint32_t slot);
  bool TryAdmit(uint32_t slot, uint32_t budget, ReplicaObserver& observer, sim::Time now);
  // Admits waiting requests queued by `visible`, FCFS, while budget, the
  // sequence cap and KV blocks allow.
  void AdmitWaiting(sim::Time visible, sim::Time now, ReplicaObserver& observer);
  void Schedule(uint32_t running_index, uint32_t tokens, bool decode);
  // Load-signal bookkeeping: remove a request's contribution before changing
  // it, add it back after.
  static uint32_t PrefillOwed(const InFlightRequest& r);
  void Unaccount(const InFlightRequest& r);
  void Account(const InFlightRequest& r);
  // Refreshes the KV signals after the pool changed at `now`.
  void UpdateKvUtilization(sim::Time now);
  // Coasting (replica_coasting.cc). The iterations a decode can coast through
  // before it must be visited; 0 if it cannot coast.
  uint64_t CoastableSteps(const InFlightRequest& r) const;
  // Lets every decode the last batch visited coast from the next iteration if
  // it can; after completions reordered running_, every running request is
  // looked at instead.
  void StartCoasting(bool running_reordered);
  // Brings a coasting request's counts up to iteration step_ and takes it out
  // of the aggregate; it is visited from now on.
  void StopCoasting(RunningEntry& e);
  void ClearCoasting();

  uint32_t id_;
  const CostModel& cost_model_;
  SchedulerConfig config_;
  uint32_t block_size_;
  uint32_t block_shift_;  // log2(block_size_) if a power of two, else 32
  RequestPool& pool_;
  ReplicaLoad& load_;
  KvCache kv_;
  std::unique_ptr<HostKvTier> ssd_tier_;  // declared first: tier_ spills to it
  std::unique_ptr<HostKvTier> tier_;      // null without a host tier
  sim::Time pending_load_ = 0;            // loads the iteration being formed waits for
  sim::RingDeque<uint32_t> waiting_;
  std::vector<RunningEntry> running_;  // admission order: the back is the newest
  std::vector<BatchEntry> batch_;
  uint32_t budget_ = 0;
  uint32_t held_blocks_ = 0;
  sim::Time held_since_ = 0;
  double held_block_seconds_ = 0;  // up to held_since_
  bool in_iteration_ = false;
  // Coasting: iterations finished so far, whether decodes may coast here, and
  // the coasting requests' count and Σ context (total tokens) in iteration step_.
  uint64_t step_ = 0;
  bool coasting_allowed_ = false;
  uint32_t coasting_ = 0;
  int64_t coasting_context_ = 0;
  bool coasting_charged_ = false;  // the budget of iteration step_ already counts them
  // No coasting request is due before this iteration (a lower bound: a
  // request that stopped coasting may have held it).
  static constexpr uint64_t kNoWake = ~uint64_t{0};
  uint64_t earliest_wake_ = kNoWake;
  sim::Time last_start_ = -1;   // of the last non-empty iteration
  sim::Time last_finish_ = -1;  // likewise
  ReplicaCounters counters_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REPLICA_H_
