#include "models/replica.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace kvroute::models {

Replica::Replica(uint32_t id, const CostModel& cost_model, SchedulerConfig config,
                 uint32_t kv_blocks, int block_size_tokens, RequestPool& pool, ReplicaLoad& load)
    : id_(id),
      cost_model_(cost_model),
      config_(config),
      block_size_(static_cast<uint32_t>(block_size_tokens)),
      block_shift_(std::has_single_bit(block_size_) ? std::countr_zero(block_size_) : 32),
      pool_(pool),
      load_(load),
      kv_(kv_blocks, config.eviction),
      coasting_allowed_(config.coast_decodes &&
                        config.max_num_seqs <= config.max_num_batched_tokens) {
  assert(!config.ssd_tier.enabled() || config.kv_tier.enabled());  // SSD is reached via DRAM
  if (!config.kv_tier.enabled()) return;
  tier_ = std::make_unique<HostKvTier>(config.kv_tier);
  if (config.ssd_tier.enabled()) {
    ssd_tier_ = std::make_unique<HostKvTier>(config.ssd_tier);
    tier_->SpillTo(ssd_tier_.get());
  }
  if (config.kv_tier.offload == OffloadRule::kOnEvict) kv_.OffloadEvictionsTo(tier_.get());
}

BlockChain Replica::CacheableChain(const InFlightRequest& r) const {
  if (!config_.cache_generated_tokens) return BlockChain(r.request.hashes.prompt());
  return BlockChain(r.request.hashes.prompt(), r.request.hashes.output());
}

uint32_t Replica::BlocksNeeded(const Request& request) const {
  // In 64 bits: a prompt and output near 2^32 tokens must not wrap to a fit.
  uint64_t tokens = uint64_t{request.prompt_tokens} + request.output_tokens;
  return static_cast<uint32_t>(
      std::min<uint64_t>(UINT32_MAX, (tokens + block_size_ - 1) / block_size_));
}

// A request owes the router prefill work for every uncomputed token except the
// one a decode feeds back, and decode work for every token not yet sampled.
uint32_t Replica::PrefillOwed(const InFlightRequest& r) {
  // Tokens whose KV arrives by transfer are owed no compute, admitted or not.
  const uint32_t have = std::max(r.computed_tokens, r.remote_tokens);
  return r.total_tokens() - have - (r.generated_tokens > 0 ? 1 : 0);
}

void Replica::Unaccount(const InFlightRequest& r) {
  load_.prefill_tokens -= PrefillOwed(r);
  load_.decode_tokens -= r.remaining_output();
}

void Replica::Account(const InFlightRequest& r) {
  load_.prefill_tokens += PrefillOwed(r);
  load_.decode_tokens += r.remaining_output();
}

bool Replica::Enqueue(uint32_t slot, sim::Time now) {
  InFlightRequest& r = pool_[slot];
  if (BlocksNeeded(r.request) > kv_.capacity_blocks()) return false;
  r.enqueued = now;
  waiting_.push_back(slot);
  ++load_.waiting;
  Account(r);
  return true;
}

uint32_t Replica::WithdrawWaiting(uint64_t request_id) {
  for (size_t i = 0; i < waiting_.size(); ++i) {
    const uint32_t slot = waiting_[i];
    const InFlightRequest& r = pool_[slot];
    if (r.request.id != request_id) continue;
    if (r.ever_admitted) return kNoSlot;
    assert(r.computed_tokens == 0 && r.kv.allocated_blocks() == 0);
    Unaccount(r);
    waiting_.erase(i);
    --load_.waiting;
    return slot;
  }
  return kNoSlot;
}

void Replica::Schedule(uint32_t running_index, uint32_t tokens, bool decode) {
  const uint32_t slot = running_[running_index].slot;
  InFlightRequest& r = pool_[slot];
  batch_.push_back(BatchEntry{slot, running_index, tokens,
                              decode ? r.total_tokens() : r.computed_tokens, decode});
  budget_ -= tokens;
  // Full blocks whose tokens this iteration computes become cacheable now;
  // the next scheduling decision comes after they are computed.
  const uint32_t full = FullBlocks(r.computed_tokens + tokens);
  if (full <= r.kv.registered_blocks()) return;
  const BlockChain chain = CacheableChain(r);
  const uint32_t covered = std::min(chain.size(), full);
  const uint32_t registered = r.kv.registered_blocks();
  if (covered <= registered) return;
  kv_.Register(chain, covered, &r.kv);
  if (tier_ && config_.kv_tier.offload == OffloadRule::kWriteThrough) {
    for (uint32_t j = covered; j > registered; --j) tier_->Store(chain[j - 1]);  // tail first
  }
}

void Replica::Preempt(uint32_t slot) {
  InFlightRequest& r = pool_[slot];
  assert(!running_.empty() && running_.back().slot == slot);
  if (RunningEntry& entry = running_.back(); entry.wake != 0) {
    // In the aggregate (coasting, or due this iteration and not yet visited);
    // its budget is taken back if it was charged.
    if (coasting_charged_) ++budget_;
    StopCoasting(entry);
  } else {
    for (size_t i = 0; i < batch_.size(); ++i) {
      if (batch_[i].slot == slot) {  // scheduled earlier in this iteration: take it back
        budget_ += batch_[i].tokens;
        batch_.erase(batch_.begin() + static_cast<long>(i));
        break;
      }
    }
  }
  Unaccount(r);
  kv_.Release(&r.kv);
  r.computed_tokens = 0;
  r.remote_tokens = 0;  // the transferred KV is gone with the blocks
  ++r.preemptions;
  Account(r);
  running_.pop_back();
  waiting_.push_front(slot);
  --load_.running;
  ++load_.waiting;
  ++counters_.preemptions;
}

bool Replica::EnsureBlocks(uint32_t slot, uint32_t tokens) {
  InFlightRequest& r = pool_[slot];
  uint32_t wanted = BlocksFor(tokens);
  if (wanted <= r.kv.allocated_blocks()) return true;
  while (!kv_.Grow(wanted - r.kv.allocated_blocks(), &r.kv)) {
    uint32_t victim = running_.back().slot;  // the newest running request
    Preempt(victim);
    if (victim == slot) return false;
  }
  return true;
}

bool Replica::TryAdmit(uint32_t slot, uint32_t budget, ReplicaObserver& observer, sim::Time now) {
  InFlightRequest& r = pool_[slot];
  // At least the last token is always computed, so a fully cached prompt still
  // has one block to prefill (vLLM).
  uint32_t max_hit_blocks = FullBlocks(r.total_tokens() - 1);
  const BlockChain chain = CacheableChain(r);
  uint32_t hit_blocks = std::min(kv_.MatchPrefix(chain), max_hit_blocks);
  // The blocks after the HBM hit that the host tier holds, then those after
  // them that the SSD tier holds, are loaded, not computed; they take HBM
  // blocks like computed ones.
  const uint32_t limit = std::min(chain.size(), max_hit_blocks);
  const uint32_t loaded = tier_ ? tier_->Match(chain, hit_blocks, limit) : 0;
  const uint32_t read_from = hit_blocks + loaded;
  const uint32_t read = ssd_tier_ ? ssd_tier_->Match(chain, read_from, limit) : 0;
  const uint32_t reused = read_from + read;
  // A disaggregated request's transferred KV covers all but its last prompt
  // token, local hit or not.
  const uint32_t present = std::max(reused * block_size_, r.remote_tokens);
  uint32_t first_chunk = std::min(r.total_tokens() - present, budget);
  uint32_t blocks = BlocksFor(present + first_chunk);
  if (tier_) tier_->BeginLoad(chain, hit_blocks, loaded);
  if (ssd_tier_) ssd_tier_->BeginLoad(chain, read_from, read);
  const bool admitted = kv_.Admit(chain, blocks, max_hit_blocks, &r.kv);
  if (ssd_tier_) {
    // Read into DRAM while both loads are still protected, then on to HBM
    // with DRAM's own run: the SSD read, then one host-to-GPU copy of both.
    if (admitted) tier_->Promote(chain, read_from, read);
    pending_load_ += ssd_tier_->EndLoad(chain, read_from, read, admitted);
  }
  if (tier_) pending_load_ += tier_->EndLoad(chain, hit_blocks, loaded, admitted, read);
  if (!admitted) return false;
  assert(r.kv.hit_blocks == hit_blocks);
  Unaccount(r);
  r.computed_tokens = present;
  Account(r);
  ++counters_.admitted;
  if (!r.ever_admitted) {
    r.ever_admitted = true;
    r.admitted_time = now;
    r.hit_tokens = r.computed_tokens;
    r.host_hit_tokens = loaded * block_size_;
    r.ssd_hit_tokens = read * block_size_;
    observer.OnAdmitted(slot, now);
  }
  return true;
}

void Replica::AdmitWaiting(sim::Time visible, sim::Time now, ReplicaObserver& observer) {
  while (budget_ > 0 && !waiting_.empty() && pool_[waiting_.front()].enqueued <= visible &&
         running_.size() < static_cast<size_t>(config_.max_num_seqs)) {
    uint32_t slot = waiting_.front();
    if (!TryAdmit(slot, budget_, observer, now)) break;  // the head waits for blocks
    waiting_.pop_front();
    --load_.waiting;
    ++load_.running;
    running_.push_back(RunningEntry{slot});
    const InFlightRequest& r = pool_[slot];
    Schedule(static_cast<uint32_t>(running_.size() - 1), std::min(r.uncomputed_tokens(), budget_),
             false);
  }
}

sim::Time Replica::StartIteration(sim::Time now, ReplicaObserver& observer) {
  assert(!in_iteration_);
  batch_.clear();
  budget_ = static_cast<uint32_t>(config_.max_num_batched_tokens);
  pending_load_ = 0;
  const uint64_t preemptions_before = counters_.preemptions;

  // Running decodes first, oldest first; then running prefills (and
  // recomputations) continue. Preemption removes requests from the back, so
  // indices before i stay valid. The second pass is skipped when the first
  // saw every running request and none was prefilling. Coasting decodes are
  // scheduled as one aggregate and charged to the budget after the first pass
  // (before it, the budget cannot run out: see "Coasting decodes").
  // When every running request coasts and none is due yet, neither pass
  // would visit one, and the scan is skipped.
  bool prefilling = false;
  coasting_charged_ = false;
  const bool none_due = running_.size() == coasting_ && step_ < earliest_wake_;
  for (bool decodes : {true, false}) {
    if (!decodes || none_due) {
      budget_ -= coasting_;
      coasting_charged_ = true;
      if (!prefilling) break;
    }
    uint64_t earliest_wake = kNoWake;  // of the coasting requests the first pass passed over
    size_t i = 0;
    for (; i < running_.size() && budget_ > 0; ++i) {
      RunningEntry& entry = running_[i];
      if (entry.coasting(step_)) {
        earliest_wake = std::min(earliest_wake, entry.wake);
        continue;
      }
      if (entry.wake != 0) StopCoasting(entry);  // this iteration visits it
      uint32_t slot = entry.slot;
      const InFlightRequest& r = pool_[slot];
      // A request's phase does not change while the batch forms, so no
      // request is visited by both passes.
      if (r.decoding() != decodes) {
        prefilling = true;
        continue;
      }
      uint32_t tokens = decodes ? 1 : std::min(r.uncomputed_tokens(), budget_);
      if (!EnsureBlocks(slot, r.computed_tokens + tokens)) continue;
      Schedule(static_cast<uint32_t>(i), tokens, decodes);
    }
    // A first pass that went through the whole list saw every request that
    // still coasts (a preempted one left the list).
    if (decodes && i == running_.size()) earliest_wake_ = earliest_wake;
  }
  // Then waiting requests, FCFS, unless this iteration had to preempt. An
  // asynchronous engine formed this batch when the previous one started, so
  // it sees only the requests that had arrived by then; if that leaves the
  // batch empty, the engine schedules again at once and sees them all.
  if (counters_.preemptions == preemptions_before) {
    const bool lagging = config_.async_scheduling && last_finish_ == now;
    AdmitWaiting(lagging ? last_start_ : now, now, observer);
    if (batch_.empty() && coasting_ == 0 && lagging) AdmitWaiting(now, now, observer);
  }
  UpdateKvUtilization(now);
  if (batch_.empty() && coasting_ == 0) return 0;

  BatchShape shape;
  // Contexts are whole numbers far below 2^53: their sum as doubles is exact,
  // whatever the order in which they are added.
  shape.decode_sequences = shape.sequences = coasting_;
  shape.decode_context_tokens = static_cast<double>(coasting_context_);
  for (const BatchEntry& e : batch_) {
    if (e.decode)
      shape.AddDecode(e.context);
    else
      shape.AddPrefillChunk(e.context, e.tokens);
  }
  uint64_t batch_tokens = static_cast<uint64_t>(shape.prefill_tokens + shape.decode_sequences);
  counters_.max_batch_tokens = std::max(counters_.max_batch_tokens, batch_tokens);
  ++counters_.iterations;
  in_iteration_ = true;
  last_start_ = now;
  // The iteration's forward pass starts once the loads admitted in it are done.
  return cost_model_.IterationTime(shape) + pending_load_;
}

void Replica::FinishIteration(sim::Time now, ReplicaObserver& observer) {
  assert(in_iteration_);
  in_iteration_ = false;
  last_finish_ = now;
  bool any_completed = false;
  // The load signals' changes, summed here and applied before anyone can
  // look (an observer call, the end): one update instead of two per request.
  // Every coasting decode sampled a token, and all of them came before any
  // prefill in the batch.
  int64_t prefill_owed = 0, decode_owed = -int64_t{coasting_};
  coasting_context_ += coasting_;
  auto apply = [&] {
    load_.prefill_tokens += prefill_owed;
    load_.decode_tokens += decode_owed;
    prefill_owed = decode_owed = 0;
  };
  for (const BatchEntry& entry : batch_) {
    InFlightRequest& r = pool_[entry.slot];
    prefill_owed -= PrefillOwed(r);
    decode_owed -= r.remaining_output();
    r.computed_tokens += entry.tokens;
    if (!entry.decode) counters_.prefill_tokens_computed += entry.tokens;
    if (r.uncomputed_tokens() == 0) {  // caught up: sample the next token
      ++r.generated_tokens;
      if (r.generated_tokens == 1) {
        r.first_token_time = now;
        apply();
        observer.OnFirstToken(entry.slot, now);
      }
    }
    if (r.remaining_output() == 0) {
      kv_.Release(&r.kv);
      --load_.running;
      ++counters_.completed;
      any_completed = true;
    } else {
      prefill_owed += PrefillOwed(r);
      decode_owed += r.remaining_output();
    }
  }
  apply();
  if (any_completed) {
    // Keep admission order; completed requests leave the running list.
    std::erase_if(running_, [this](const RunningEntry& e) {
      return !e.coasting(step_) && pool_[e.slot].remaining_output() == 0;
    });
    for (const BatchEntry& entry : batch_) {
      if (pool_[entry.slot].remaining_output() == 0) observer.OnCompleted(entry.slot, now);
    }
  }
  UpdateKvUtilization(now);
  ++step_;
  StartCoasting(any_completed);
}

void Replica::Fail(sim::Time now, std::vector<uint32_t>* dropped) {
  for (const RunningEntry& e : running_) {
    kv_.Release(&pool_[e.slot].kv);
    dropped->push_back(e.slot);
  }
  for (size_t i = 0; i < waiting_.size(); ++i) dropped->push_back(waiting_[i]);
  for (size_t i = dropped->size() - running_.size() - waiting_.size(); i < dropped->size(); ++i) {
    InFlightRequest& r = pool_[(*dropped)[i]];
    r.computed_tokens = 0;
    r.generated_tokens = 0;
    r.remote_tokens = 0;
    r.first_token_time = sim::kNever;
  }
  running_.clear();
  ClearCoasting();
  waiting_.clear();
  batch_.clear();
  in_iteration_ = false;
  kv_.Clear();
  if (tier_) tier_->Clear();          // the host memory was the engine process's
  if (ssd_tier_) ssd_tier_->Clear();  // and so was the index of its SSD files
  bool healthy = load_.healthy;
  load_ = ReplicaLoad{};
  load_.healthy = healthy;
  ++counters_.failures;
  UpdateKvUtilization(now);
}

void Replica::StartCold(sim::Time now) {
  assert(idle());
  kv_.Clear();
  if (tier_) tier_->Clear();
  if (ssd_tier_) ssd_tier_->Clear();
  UpdateKvUtilization(now);
}

double Replica::HeldBlockSeconds(sim::Time now) const {
  return held_block_seconds_ + held_blocks_ * sim::ToSeconds(now - held_since_);
}

void Replica::UpdateKvUtilization(sim::Time now) {
  held_block_seconds_ = HeldBlockSeconds(now);
  held_since_ = now;
  held_blocks_ = kv_.used_blocks() - kv_.evictable_blocks();
  // As vLLM's usage metric: blocks running requests hold. Cached blocks no one
  // pins can be evicted at once, so they count as free.
  load_.kv_utilization =
      kv_.capacity_blocks() == 0
          ? 0
          : static_cast<double>(held_blocks_) / static_cast<double>(kv_.capacity_blocks());
}

}  // namespace kvroute::models
