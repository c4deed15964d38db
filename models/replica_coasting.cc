// Coasting decodes (replica.h, "Coasting decodes"): which decodes may skip
// their visits, and bringing their counts up to date when they may not.
#include <algorithm>

#include "models/replica.h"

namespace kvroute::models {

// The first iteration (counted from the next one, 0) in which the decode must
// be visited: it needs a new block (EnsureBlocks), completes a block it may
// register (Schedule), or samples its last token (FinishIteration). Until
// then every iteration only adds one token to it.
uint64_t Replica::CoastableSteps(const InFlightRequest& r) const {
  if (!coasting_allowed_ || !r.decoding()) return 0;
  const uint64_t computed = r.computed_tokens;
  const uint64_t block = block_size_;
  // Iteration d schedules token computed + d + 1, as in EnsureBlocks.
  const uint64_t allocated_tokens = uint64_t{r.kv.allocated_blocks()} * block;
  if (allocated_tokens <= computed) return 0;
  uint64_t steps = std::min<uint64_t>(r.remaining_output() - 1, allocated_tokens - computed);
  // Iteration d completes block registered + 1 when computed + d + 1 reaches
  // its end, if the chain has that block (Schedule registers only then).
  const uint32_t registered = r.kv.registered_blocks();
  if (CacheableChain(r).size() > registered) {
    const uint64_t next_full = (uint64_t{registered} + 1) * block;
    if (next_full <= computed + 1) return 0;
    steps = std::min(steps, next_full - computed - 1);
  }
  return steps;
}

void Replica::StartCoasting(bool running_reordered) {
  if (!coasting_allowed_) return;
  auto coast = [this](RunningEntry& e) {
    if (e.wake != 0) return;  // coasting already
    const InFlightRequest& r = pool_[e.slot];
    const uint64_t steps = CoastableSteps(r);
    if (steps == 0) return;
    e.since = step_;
    e.wake = step_ + steps;
    earliest_wake_ = std::min(earliest_wake_, e.wake);
    ++coasting_;
    coasting_context_ += r.total_tokens();
  };
  // Only a request the batch visited can have become able to coast: the
  // others coast already or are prefills the budget left out.
  if (running_reordered) {
    for (RunningEntry& e : running_) coast(e);
  } else {
    for (const BatchEntry& b : batch_) coast(running_[b.running_index]);
  }
}

void Replica::StopCoasting(RunningEntry& e) {
  InFlightRequest& r = pool_[e.slot];
  const auto advanced = static_cast<uint32_t>(step_ - e.since);
  r.computed_tokens += advanced;
  r.generated_tokens += advanced;
  --coasting_;
  coasting_context_ -= r.total_tokens();
  e.since = e.wake = 0;
}

void Replica::ClearCoasting() {
  earliest_wake_ = kNoWake;
  coasting_ = 0;
  coasting_context_ = 0;
}

}  // namespace kvroute::models
