// A request as the workload produces it, and the state it carries while it is
// in flight (DESIGN.md, "Requests").
#ifndef KVROUTE_MODELS_REQUEST_H_
#define KVROUTE_MODELS_REQUEST_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "models/kv_cache.h"
#include "models/request_hashes.h"
#include "sim/core/time.h"

namespace kvroute::models {

struct Request {
  uint64_t id = 0;
  sim::Time arrival = 0;
  uint32_t key = 0;  // routing key: business, tenant or conversation
  uint32_t tenant = 0;
  uint64_t session = 0;
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;  // >= 1
  // The prompt's and the output's chained block hashes (request_hashes.h).
  RequestHashes hashes;
};

// A request between arrival and completion. Lives in a RequestPool slot whose
// vectors keep their capacity across reuse, so steady state allocates nothing.
//
// Token accounting follows vLLM: a request has prompt + generated tokens; the
// KV of `computed_tokens` of them exists. An iteration computes some of the
// rest (a prefill chunk, or the one token a decode feeds back), and when the
// request has caught up with all its tokens it samples the next one. A request
// preempted by recompute drops its KV and computes prompt and generated tokens
// again from its cached prefix.
struct InFlightRequest {
  Request request;
  KvHandle kv;
  uint32_t replica = 0;
  uint32_t hit_tokens = 0;       // prompt tokens served from the cache at first admission
  uint32_t host_hit_tokens = 0;  // of those, loaded from the host tier (kv_tier.h)
  uint32_t ssd_hit_tokens = 0;   // of those, read from the local-SSD tier (via host memory)
  uint32_t computed_tokens = 0;  // tokens whose KV exists (cached prefix + computed)
  uint32_t generated_tokens = 0;
  uint32_t preemptions = 0;
  uint32_t retries = 0;  // times re-routed after its replica failed
  // Prefill/decode disaggregation (sim/runner/pd_router.h). On a prefill
  // replica the request stops after its first token (vLLM's prefill instance
  // runs it with max_tokens 1). On a decode replica, the KV of its first
  // `remote_tokens` tokens arrived from the prefill replica: admission
  // allocates blocks for them and computes only the rest (vLLM's
  // NixlConnector loads all but the last prompt token). A preemption drops
  // them: a recompute starts from the local cache.
  bool prefill_only = false;
  uint32_t remote_tokens = 0;
  // Why the policy chose `replica` (policies/policy.h RouteExplanation): a
  // static string, null when none; NaN score when none.
  const char* route_reason = nullptr;
  double route_score = std::numeric_limits<double>::quiet_NaN();
  sim::Time enqueued = 0;                 // reached its replica's engine
  sim::Time admitted_time = sim::kNever;  // first scheduled (ever_admitted)
  sim::Time first_token_time = sim::kNever;
  bool ever_admitted = false;  // the served hit is counted at the first admission only
  bool in_use = false;         // the pool slot holds a live request

  uint32_t total_tokens() const { return request.prompt_tokens + generated_tokens; }
  uint32_t uncomputed_tokens() const { return total_tokens() - computed_tokens; }
  // Caught up except for the last sampled token: the next iteration is a decode.
  bool decoding() const { return generated_tokens > 0 && uncomputed_tokens() == 1; }
  uint32_t remaining_output() const {
    return (prefill_only ? 1 : request.output_tokens) - generated_tokens;
  }
};

// A slab of in-flight requests addressed by 32-bit slot numbers.
class RequestPool {
 public:
  uint32_t Acquire() {
    uint32_t slot;
    if (free_.empty()) {
      slots_.emplace_back();
      slot = static_cast<uint32_t>(slots_.size() - 1);
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    slots_[slot].in_use = true;
    return slot;
  }

  // The slot's vectors keep their capacity for the next request; the hash
  // vectors go back to the hasher that filled them (request_hashes.h).
  void Release(uint32_t slot) {
    InFlightRequest& r = slots_[slot];
    r.request.hashes.Clear();
    r.kv = KvHandle{};
    r.hit_tokens = r.host_hit_tokens = r.ssd_hit_tokens = r.computed_tokens = r.generated_tokens =
        r.preemptions = r.retries = r.remote_tokens = 0;
    r.prefill_only = false;
    r.first_token_time = r.admitted_time = sim::kNever;
    r.ever_admitted = false;
    r.in_use = false;
    free_.push_back(slot);
  }

  InFlightRequest& operator[](uint32_t slot) { return slots_[slot]; }
  const InFlightRequest& operator[](uint32_t slot) const { return slots_[slot]; }
  size_t in_flight() const { return slots_.size() - free_.size(); }
  uint32_t slot_count() const { return static_cast<uint32_t>(slots_.size()); }

 private:
  std::vector<InFlightRequest> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REQUEST_H_
