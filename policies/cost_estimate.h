// Per-replica cost of serving a request, in seconds, from the replicas' cost
// model and the load signals: the prefill of this request after its cache hit,
// plus the prefill work already queued there. This is the S_i of seed 000
// ("least workload": remaining work of existing tasks + new work of this
// request) and of FlexLB's CostBasedPrefillStrategy (policies.md §9:
// prefill_ms after the hit + realWaitTimeMs). Also the "work" load measure.
#ifndef KVROUTE_POLICIES_COST_ESTIMATE_H_
#define KVROUTE_POLICIES_COST_ESTIMATE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/cost_model.h"
#include "models/replica_load.h"
#include "policies/policy.h"

namespace kvroute::policies {

class CostEstimator {
 public:
  explicit CostEstimator(const PolicyContext& ctx);

  // Time to prefill `prompt_tokens` of which `hit_tokens` are cached, run
  // alone in token-budget chunks. As vLLM, at least the last token is computed.
  double PrefillSeconds(uint32_t prompt_tokens, uint32_t hit_tokens) const {
    return kinds_[0].PrefillSeconds(prompt_tokens, hit_tokens);
  }

  // Queued prefill work on a replica: its outstanding prompt tokens at the
  // full-batch throughput of the cost model.
  double QueuedPrefillSeconds(const models::ReplicaLoad& load) const {
    return kinds_[0].QueuedPrefillSeconds(load);
  }

  // Everything the replica still owes: queued prefill plus its decode tokens,
  // generated one per sequence per iteration.
  double OutstandingWorkSeconds(const models::ReplicaLoad& load) const {
    return kinds_[0].OutstandingWorkSeconds(load);
  }

  // The same, priced with replica `replica`'s own cost model and token budget
  // (PolicyContext::replica_cost_models); the pool's when it gives none.
  double PrefillSecondsOn(uint32_t replica, uint32_t prompt_tokens, uint32_t hit_tokens) const {
    return KindOf(replica).PrefillSeconds(prompt_tokens, hit_tokens);
  }
  double QueuedPrefillSecondsOn(uint32_t replica, const models::ReplicaLoad& load) const {
    return KindOf(replica).QueuedPrefillSeconds(load);
  }
  double OutstandingWorkSecondsOn(uint32_t replica, const models::ReplicaLoad& load) const {
    return KindOf(replica).OutstandingWorkSeconds(load);
  }

  int block_size() const { return block_size_; }
  // Seconds per prompt token in a full token-budget prefill iteration.
  double prefill_seconds_per_token() const { return kinds_[0].prefill_seconds_per_token; }

 private:
  // One cost model with its token budget: the pool's, or one GPU kind's.
  struct Kind {
    Kind(const models::CostModel* model, int64_t budget);
    double PrefillSeconds(uint32_t prompt_tokens, uint32_t hit_tokens) const;
    double QueuedPrefillSeconds(const models::ReplicaLoad& load) const {
      return static_cast<double>(load.prefill_tokens) * prefill_seconds_per_token;
    }
    double OutstandingWorkSeconds(const models::ReplicaLoad& load) const;
    double ComputePrefillSeconds(uint32_t prompt_tokens, uint32_t hit_tokens) const;

    const models::CostModel* model;
    int64_t budget;
    double prefill_seconds_per_token;
    // The last few PrefillSeconds answers: a policy prices one prompt on
    // every replica, and the replicas' hits take few values.
    struct Remembered {
      uint32_t prompt_tokens = 0, hit_tokens = 0;
      double seconds = -1;  // -1: empty
    };
    mutable Remembered remembered[4];
    mutable uint32_t next_remembered = 0;
  };
  const Kind& KindOf(uint32_t replica) const {
    return kind_of_.empty() ? kinds_[0] : kinds_[kind_of_[replica]];
  }

  std::unique_ptr<models::CostModel> owned_;  // when the context gives none
  int block_size_;
  std::vector<Kind> kinds_;        // [0]: the pool's (PolicyContext::cost_model)
  std::vector<uint32_t> kind_of_;  // per replica, an index into kinds_; empty: all [0]
};

// Prompt tokens of `request` cached on `replica` per the view's cache oracle
// (0 when the view offers none), capped so the last prompt token is computed.
uint32_t ExactHitTokens(const ClusterView& view, uint32_t replica, const models::Request& request,
                        int block_size);
// ExactHitTokens of every replica of the view at once, out[r] for replica r.
// REQUIRES: out.size() == view.size().
void ExactHitTokensAll(const ClusterView& view, const models::Request& request, int block_size,
                       std::span<uint32_t> out);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_COST_ESTIMATE_H_
