// One serving destination (DESIGN.md, "Replica"): a KV block pool with a prefix
// cache, and a continuous-batching scheduler in the style of vLLM:
//  - each iteration has a token budget shared by decodes and chunked prefills;
//  - running decodes are scheduled first, then running prefills continue, then
//    waiting requests are admitted in FCFS order while the budget, the cap on
//    running sequences and the KV pool allow; the head of the queue blocks the
//    rest when its blocks cannot be had;
//  - a request's blocks (prompt and output) are reserved at admission, so a
//    running request never runs out of KV and is never preempted;
//  - the served cache hit is counted when the request is admitted (scheduled),
//    not when it is routed; full prompt blocks become cacheable when the chunk
//    that computes them is scheduled.
// TTFT ends with the iteration that completes the prefill (it samples the first
// token); E2E with the iteration that produces the last token.
#ifndef KVROUTE_MODELS_REPLICA_H_
#define KVROUTE_MODELS_REPLICA_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "models/cost_model.h"
#include "models/kv_cache.h"
#include "models/replica_load.h"
#include "models/request.h"
#include "sim/core/time.h"

namespace kvroute::models {

struct SchedulerConfig {
  int max_num_batched_tokens = 8192;  // per-iteration token budget (vLLM's name)
  int max_num_seqs = 256;             // cap on running sequences (vLLM's name)
};

// Receives what happens to requests inside a replica.
class ReplicaObserver {
 public:
  virtual ~ReplicaObserver() = default;
  virtual void OnAdmitted(uint32_t slot, sim::Time now) = 0;
  virtual void OnFirstToken(uint32_t slot, sim::Time now) = 0;
  // The replica no longer refers to `slot`; the observer may release it.
  virtual void OnCompleted(uint32_t slot, sim::Time now) = 0;
};

struct ReplicaCounters {
  uint64_t admitted = 0;
  uint64_t completed = 0;
  uint64_t iterations = 0;
  uint64_t prefill_tokens_computed = 0;
  uint64_t max_batch_tokens = 0;  // largest iteration seen, for budget checks
};

class Replica {
 public:
  // `pool` and `load` must outlive the replica.
  Replica(uint32_t id, const CostModel& cost_model, SchedulerConfig config, uint32_t kv_blocks,
          int block_size_tokens, RequestPool& pool, ReplicaLoad& load);

  // Blocks a request needs in all: its prompt and its output.
  uint32_t BlocksNeeded(const Request& request) const;

  // Queues the request in `slot`. Returns false, queuing nothing, if it could
  // never fit in this replica's KV pool.
  bool Enqueue(uint32_t slot);

  // Forms the next batch at `now` and returns its duration; 0 means idle.
  // Reports the requests it admits. REQUIRES: !in_iteration().
  sim::Time StartIteration(sim::Time now, ReplicaObserver& observer);

  // Applies the outcome of the iteration started last.
  // REQUIRES: in_iteration().
  void FinishIteration(sim::Time now, ReplicaObserver& observer);

  bool in_iteration() const { return in_iteration_; }
  const KvCache& kv_cache() const { return kv_; }
  const ReplicaCounters& counters() const { return counters_; }
  const ReplicaLoad& load() const { return load_; }
  uint32_t id() const { return id_; }

 private:
  struct BatchEntry {
    uint32_t slot;
    uint32_t prefill_tokens;  // 0 for a decode
  };

  void SchedulePrefillChunk(uint32_t slot, uint32_t budget, BatchShape* shape);
  bool TryAdmit(uint32_t slot);
  void UpdateKvUtilization();

  uint32_t id_;
  const CostModel& cost_model_;
  SchedulerConfig config_;
  int block_size_;
  RequestPool& pool_;
  ReplicaLoad& load_;
  KvCache kv_;
  std::deque<uint32_t> waiting_;
  std::vector<uint32_t> running_;  // admission order
  std::vector<BatchEntry> batch_;
  bool in_iteration_ = false;
  ReplicaCounters counters_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REPLICA_H_
