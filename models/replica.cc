#include "models/replica.h"

#include <algorithm>
#include <cassert>

namespace kvroute::models {

Replica::Replica(uint32_t id, const CostModel& cost_model, SchedulerConfig config,
                 uint32_t kv_blocks, int block_size_tokens, RequestPool& pool, ReplicaLoad& load)
    : id_(id),
      cost_model_(cost_model),
      config_(config),
      block_size_(block_size_tokens),
      pool_(pool),
      load_(load),
      kv_(kv_blocks) {}

uint32_t Replica::BlocksNeeded(const Request& request) const {
  uint64_t tokens = uint64_t{request.prompt_tokens} + request.output_tokens;
  return static_cast<uint32_t>((tokens + block_size_ - 1) / block_size_);
}

bool Replica::Enqueue(uint32_t slot) {
  const Request& request = pool_[slot].request;
  if (BlocksNeeded(request) > kv_.capacity_blocks()) return false;
  waiting_.push_back(slot);
  ++load_.waiting;
  load_.prefill_tokens += request.prompt_tokens;
  load_.decode_tokens += request.output_tokens;
  return true;
}

bool Replica::TryAdmit(uint32_t slot) {
  InFlightRequest& r = pool_[slot];
  const Request& request = r.request;
  // As vLLM, at least the last prompt token is always computed, so a fully
  // cached prompt still has one block to prefill.
  uint32_t max_hit_blocks = (request.prompt_tokens - 1) / block_size_;
  if (!kv_.Admit(request.block_hashes, BlocksNeeded(request), max_hit_blocks, &r.kv)) return false;
  r.hit_tokens = r.kv.hit_blocks * static_cast<uint32_t>(block_size_);
  r.computed_tokens = r.hit_tokens;
  r.admitted = true;
  load_.prefill_tokens -= r.hit_tokens;
  ++counters_.admitted;
  return true;
}

void Replica::SchedulePrefillChunk(uint32_t slot, uint32_t budget, BatchShape* shape) {
  InFlightRequest& r = pool_[slot];
  uint32_t chunk = std::min(r.remaining_prefill(), budget);
  shape->AddPrefillChunk(r.computed_tokens, chunk);
  batch_.push_back(BatchEntry{slot, chunk});
  // Blocks whose tokens this chunk computes become cacheable now; the next
  // scheduling decision happens after the iteration has computed them.
  uint32_t full_blocks = static_cast<uint32_t>(r.request.block_hashes.size());
  uint32_t covered = std::min<uint32_t>(full_blocks, (r.computed_tokens + chunk) / block_size_);
  kv_.Register(r.request.block_hashes, covered, &r.kv);
}

sim::Time Replica::StartIteration(sim::Time now, ReplicaObserver& observer) {
  assert(!in_iteration_);
  batch_.clear();
  BatchShape shape;
  uint32_t budget = static_cast<uint32_t>(config_.max_num_batched_tokens);

  for (uint32_t slot : running_) {  // decodes first
    const InFlightRequest& r = pool_[slot];
    if (!r.prefill_done() || budget == 0) continue;
    shape.AddDecode(r.request.prompt_tokens + r.generated_tokens);
    batch_.push_back(BatchEntry{slot, 0});
    --budget;
  }
  for (uint32_t slot : running_) {  // then running prefills continue
    if (pool_[slot].prefill_done() || budget == 0) continue;
    SchedulePrefillChunk(slot, budget, &shape);
    budget -= batch_.back().prefill_tokens;
  }
  while (budget > 0 && !waiting_.empty() &&
         running_.size() < static_cast<size_t>(config_.max_num_seqs)) {
    uint32_t slot = waiting_.front();
    if (!TryAdmit(slot)) break;  // FCFS: the head waits for blocks, and so does the rest
    waiting_.pop_front();
    --load_.waiting;
    ++load_.running;
    running_.push_back(slot);
    observer.OnAdmitted(slot, now);
    SchedulePrefillChunk(slot, budget, &shape);
    budget -= batch_.back().prefill_tokens;
  }
  UpdateKvUtilization();
  if (shape.Empty()) return 0;

  uint64_t batch_tokens = static_cast<uint64_t>(shape.prefill_tokens + shape.decode_sequences);
  counters_.max_batch_tokens = std::max(counters_.max_batch_tokens, batch_tokens);
  ++counters_.iterations;
  in_iteration_ = true;
  return cost_model_.IterationTime(shape);
}

void Replica::FinishIteration(sim::Time now, ReplicaObserver& observer) {
  assert(in_iteration_);
  in_iteration_ = false;
  bool any_completed = false;
  for (const BatchEntry& entry : batch_) {
    InFlightRequest& r = pool_[entry.slot];
    if (entry.prefill_tokens > 0) {
      r.computed_tokens += entry.prefill_tokens;
      load_.prefill_tokens -= entry.prefill_tokens;
      counters_.prefill_tokens_computed += entry.prefill_tokens;
      if (!r.prefill_done()) continue;
      r.first_token_time = now;
      observer.OnFirstToken(entry.slot, now);
    }
    ++r.generated_tokens;
    --load_.decode_tokens;
    if (r.remaining_output() == 0) {
      kv_.Release(&r.kv);
      --load_.running;
      ++counters_.completed;
      any_completed = true;
    }
  }
  if (any_completed) {
    // Keep admission order; completed requests leave the running list.
    std::erase_if(running_, [this](uint32_t slot) { return pool_[slot].remaining_output() == 0; });
    for (const BatchEntry& entry : batch_) {
      if (pool_[entry.slot].remaining_output() == 0) observer.OnCompleted(entry.slot, now);
    }
  }
  UpdateKvUtilization();
}

void Replica::UpdateKvUtilization() {
  load_.kv_utilization =
      kv_.capacity_blocks() == 0
          ? 0
          : static_cast<double>(kv_.used_blocks()) / static_cast<double>(kv_.capacity_blocks());
}

}  // namespace kvroute::models
