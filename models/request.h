// A request as the workload produces it, and the state it carries while it is
// in flight (DESIGN.md, "Requests").
#ifndef KVROUTE_MODELS_REQUEST_H_
#define KVROUTE_MODELS_REQUEST_H_

#include <cstdint>
#include <vector>

#include "models/kv_cache.h"
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
  // Chained hashes of the prompt's full blocks; the trailing partial block is
  // not cacheable and has no hash.
  std::vector<uint64_t> block_hashes;
};

// A request between arrival and completion. Lives in a RequestPool slot whose
// vectors keep their capacity across reuse, so steady state allocates nothing.
struct InFlightRequest {
  Request request;
  KvHandle kv;
  uint32_t replica = 0;
  uint32_t hit_tokens = 0;       // prompt tokens served from the cache
  uint32_t computed_tokens = 0;  // prompt tokens whose KV exists (hit + prefilled)
  uint32_t generated_tokens = 0;
  sim::Time first_token_time = sim::kNever;
  bool admitted = false;
  bool in_use = false;  // the pool slot holds a live request

  uint32_t remaining_prefill() const { return request.prompt_tokens - computed_tokens; }
  uint32_t remaining_output() const { return request.output_tokens - generated_tokens; }
  bool prefill_done() const { return computed_tokens == request.prompt_tokens; }
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

  // The slot's vectors keep their capacity for the next request.
  void Release(uint32_t slot) {
    InFlightRequest& r = slots_[slot];
    r.request.block_hashes.clear();
    r.kv.pinned.clear();
    r.hit_tokens = r.computed_tokens = r.generated_tokens = 0;
    r.first_token_time = sim::kNever;
    r.admitted = false;
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
