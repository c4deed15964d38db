#include "models/replica.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "models/workload.h"
#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

// Drives one replica by hand: requests are enqueued at time 0 and iterations
// run back to back until the replica is idle.
class ReplicaTest : public ::testing::Test, public ReplicaObserver {
 protected:
  void Make(SchedulerConfig config, uint32_t kv_blocks) {
    replica_ = std::make_unique<Replica>(0, cost_, config, kv_blocks, 16, pool_, load_);
  }

  uint32_t Add(uint32_t prompt_tokens, uint32_t output_tokens, uint64_t prefix_tag,
               uint32_t shared_blocks) {
    uint32_t slot = pool_.Acquire();
    Request& r = pool_[slot].request;
    r.id = next_id_++;
    r.prompt_tokens = prompt_tokens;
    r.output_tokens = output_tokens;
    uint64_t h = 1;
    for (uint32_t j = 0; j < prompt_tokens / 16; ++j) {
      uint64_t content =
          j < shared_blocks ? sim::Combine(prefix_tag, j) : sim::Combine(r.id + 99, j);
      r.hashes.mutable_prompt()->push_back(h = sim::ChainBlockHash(h, content));
    }
    EXPECT_TRUE(replica_->Enqueue(slot, now_));
    return slot;
  }

  // Runs iterations until idle; returns the number of iterations.
  int RunToIdle() {
    int iterations = 0;
    for (;;) {
      sim::Time d = replica_->StartIteration(now_, *this);
      if (d == 0) return iterations;
      now_ += d;
      replica_->FinishIteration(now_, *this);
      ++iterations;
      EXPECT_EQ(replica_->kv_cache().CheckInvariants(), "");
      EXPECT_LE(replica_->kv_cache().used_blocks(), replica_->kv_cache().capacity_blocks());
      EXPECT_LE(replica_->counters().max_batch_tokens, 8192u);
    }
  }

  void OnAdmitted(uint32_t slot, sim::Time t) override {
    admitted_.push_back(slot);
    admitted_at_[slot] = t;
  }
  void OnFirstToken(uint32_t slot, sim::Time) override { first_tokens_.push_back(slot); }
  void OnCompleted(uint32_t slot, sim::Time t) override {
    completed_.push_back(slot);
    completion_time_[slot] = t;
  }

  FixedCostModel cost_{sim::FromSeconds(0.01)};
  RequestPool pool_;
  ReplicaLoad load_;
  std::unique_ptr<Replica> replica_;
  sim::Time now_ = 0;
  uint64_t next_id_ = 0;
  std::vector<uint32_t> admitted_, first_tokens_, completed_;
  std::map<uint32_t, sim::Time> completion_time_, admitted_at_;
};

TEST_F(ReplicaTest, EveryRequestCompletesAndTheBudgetHolds) {
  Make(SchedulerConfig{.max_num_batched_tokens = 512, .max_num_seqs = 8}, 2000);
  for (int i = 0; i < 40; ++i) Add(100 + 37 * i, 1 + i % 9, i % 3, 4);
  RunToIdle();
  EXPECT_EQ(completed_.size(), 40u);
  EXPECT_EQ(first_tokens_.size(), 40u);
  EXPECT_LE(replica_->counters().max_batch_tokens, 512u);
  EXPECT_EQ(load_.waiting, 0u);
  EXPECT_EQ(load_.running, 0u);
  EXPECT_EQ(load_.prefill_tokens, 0);
  EXPECT_EQ(load_.decode_tokens, 0);
  EXPECT_EQ(replica_->kv_cache().used_blocks(), replica_->kv_cache().cached_blocks());
}

TEST_F(ReplicaTest, ChunkedPrefillTakesAsManyIterationsAsTheBudgetNeeds) {
  Make(SchedulerConfig{.max_num_batched_tokens = 256, .max_num_seqs = 8}, 2000);
  Add(1000, 1, 1, 0);
  // ceil(1000 / 256) = 4 prefill iterations; the last samples the only token.
  EXPECT_EQ(RunToIdle(), 4);
}

TEST_F(ReplicaTest, DecodeTakesOneIterationPerTokenAfterTheFirst) {
  Make(SchedulerConfig{}, 2000);
  uint32_t slot = Add(64, 5, 1, 0);
  EXPECT_EQ(RunToIdle(), 5);  // one prefill (first token) + four decodes
  EXPECT_EQ(completion_time_[slot], sim::FromSeconds(0.05));
}

TEST_F(ReplicaTest, CachedPrefixIsServedAtAdmission) {
  Make(SchedulerConfig{}, 2000);
  Add(320, 1, 7, 10);  // 20 blocks, the first 10 shared
  RunToIdle();
  uint32_t second = Add(320, 1, 7, 10);
  replica_->StartIteration(now_, *this);
  EXPECT_EQ(pool_[second].hit_tokens, 160u);  // counted when scheduled
  EXPECT_EQ(pool_[second].computed_tokens, 160u);
}

TEST_F(ReplicaTest, FullyCachedPromptStillComputesItsLastBlock) {
  Make(SchedulerConfig{}, 2000);
  Add(320, 1, 7, 20);
  RunToIdle();
  uint32_t again = Add(320, 1, 7, 20);
  replica_->StartIteration(now_, *this);
  EXPECT_EQ(pool_[again].hit_tokens, 304u);  // 19 of 20 blocks, as vLLM
}

TEST_F(ReplicaTest, HeadOfQueueWaitsForBlocksAndBlocksTheRest) {
  Make(SchedulerConfig{}, 30);
  uint32_t big = Add(400, 10, 1, 0);     // 26 blocks
  uint32_t bigger = Add(400, 10, 2, 0);  // needs 26 more: must wait for the first
  uint32_t small = Add(16, 1, 3, 0);     // would fit, but FCFS keeps it behind
  replica_->StartIteration(now_, *this);
  EXPECT_TRUE(pool_[big].ever_admitted);
  EXPECT_FALSE(pool_[bigger].ever_admitted);
  EXPECT_FALSE(pool_[small].ever_admitted);
  EXPECT_EQ(load_.waiting, 2u);
  now_ += sim::FromSeconds(0.01);
  replica_->FinishIteration(now_, *this);
  RunToIdle();
  EXPECT_EQ(admitted_, (std::vector<uint32_t>{big, bigger, small}));
  EXPECT_EQ(completed_.size(), 3u);
}

TEST_F(ReplicaTest, BlocksAreAllocatedAsTokensAreScheduled) {
  Make(SchedulerConfig{.max_num_batched_tokens = 64, .max_num_seqs = 8}, 2000);
  uint32_t slot = Add(200, 40, 1, 0);
  replica_->StartIteration(now_, *this);
  EXPECT_EQ(pool_[slot].kv.allocated_blocks(), 4u);  // the first 64-token chunk
  now_ += sim::FromSeconds(0.01);
  replica_->FinishIteration(now_, *this);
  RunToIdle();
  EXPECT_EQ(completed_.size(), 1u);
}

// Two requests whose decodes outgrow a small pool: the newer one is preempted
// by recompute, returns to the queue head, recomputes its prompt and generated
// tokens, and both still complete.
TEST_F(ReplicaTest, NewestRunningRequestIsPreemptedWhenBlocksRunOut) {
  Make(SchedulerConfig{}, 20);
  uint32_t older = Add(128, 100, 1, 0);  // 8 prompt blocks, 15 at the end
  uint32_t newer = Add(128, 100, 2, 0);
  RunToIdle();
  EXPECT_EQ(completed_.size(), 2u);
  EXPECT_GE(replica_->counters().preemptions, 1u);
  EXPECT_EQ(pool_[older].preemptions, 0u);
  EXPECT_GE(pool_[newer].preemptions, 1u);
  EXPECT_EQ(completed_.front(), older);
  // The newer request computed more than its prompt: it recomputed.
  EXPECT_GT(replica_->counters().prefill_tokens_computed, 256u);
}

TEST_F(ReplicaTest, IterationThatPreemptsAdmitsNothingNew) {
  Make(SchedulerConfig{}, 17);
  Add(128, 100, 1, 0);
  uint32_t newer = Add(128, 100, 2, 0);
  sim::Time d = 0;
  // Run until the first preemption.
  while (replica_->counters().preemptions == 0) {
    d = replica_->StartIteration(now_, *this);
    ASSERT_GT(d, 0);
    if (replica_->counters().preemptions > 0) break;
    now_ += d;
    replica_->FinishIteration(now_, *this);
  }
  EXPECT_FALSE(std::count(admitted_.begin(), admitted_.end(), newer) > 1);
  EXPECT_EQ(load_.waiting, 1u);  // the preempted request waits; nothing was admitted
}

TEST_F(ReplicaTest, FailureDropsCacheWorkAndQueue) {
  Make(SchedulerConfig{.max_num_batched_tokens = 8192, .max_num_seqs = 2}, 2000);
  uint32_t a = Add(320, 50, 1, 10), b = Add(320, 50, 1, 10), c = Add(320, 50, 2, 10);
  sim::Time d = replica_->StartIteration(now_, *this);
  now_ += d;
  replica_->FinishIteration(now_, *this);
  replica_->StartIteration(now_, *this);  // in flight when the replica fails
  std::vector<uint32_t> dropped;
  replica_->Fail(now_, &dropped);
  EXPECT_EQ(dropped, (std::vector<uint32_t>{a, b, c}));
  EXPECT_FALSE(replica_->in_iteration());
  EXPECT_EQ(replica_->kv_cache().used_blocks(), 0u);
  EXPECT_EQ(replica_->kv_cache().cached_blocks(), 0u);
  EXPECT_EQ(replica_->kv_cache().CheckInvariants(), "");
  EXPECT_EQ(load_.waiting + load_.running, 0u);
  EXPECT_EQ(load_.prefill_tokens + load_.decode_tokens, 0);
  for (uint32_t slot : dropped) {
    EXPECT_EQ(pool_[slot].computed_tokens, 0u);
    EXPECT_EQ(pool_[slot].generated_tokens, 0u);
    EXPECT_FALSE(pool_[slot].kv.active);
  }
  // It comes back cold: the same prompt misses.
  uint32_t again = Add(320, 1, 1, 10);
  replica_->StartIteration(now_, *this);
  EXPECT_EQ(pool_[again].hit_tokens, 0u);
}

// As vLLM's usage metric, KV utilisation counts blocks running requests hold,
// not cached blocks nobody pins (they are free to evict).
TEST_F(ReplicaTest, KvUtilizationCountsHeldBlocksOnly) {
  Make(SchedulerConfig{}, 1000);
  for (int i = 0; i < 20; ++i) Add(320, 4, i, 20);
  now_ += replica_->StartIteration(now_, *this);
  EXPECT_GT(load_.kv_utilization, 0.1);
  replica_->FinishIteration(now_, *this);
  RunToIdle();
  EXPECT_GT(replica_->kv_cache().cached_blocks(), 300u);
  EXPECT_EQ(load_.kv_utilization, 0);
}

TEST_F(ReplicaTest, RunningSequencesAreCapped) {
  Make(SchedulerConfig{.max_num_batched_tokens = 8192, .max_num_seqs = 3}, 2000);
  for (int i = 0; i < 5; ++i) Add(32, 4, i, 0);
  replica_->StartIteration(now_, *this);
  EXPECT_EQ(load_.running, 3u);
  EXPECT_EQ(load_.waiting, 2u);
}

TEST_F(ReplicaTest, WithdrawnWaitingRequestLeavesNoTrace) {
  Make(SchedulerConfig{.max_num_batched_tokens = 8192, .max_num_seqs = 1}, 2000);
  uint32_t a = Add(320, 5, 1, 0), b = Add(200, 7, 2, 0), c = Add(100, 3, 3, 0);
  replica_->StartIteration(now_, *this);  // a runs; b and c wait (one sequence at a time)
  const ReplicaLoad before = load_;
  EXPECT_EQ(replica_->WithdrawWaiting(pool_[b].request.id), b);
  EXPECT_EQ(load_.waiting, before.waiting - 1);
  EXPECT_EQ(load_.prefill_tokens, before.prefill_tokens - 200);
  EXPECT_EQ(load_.decode_tokens, before.decode_tokens - 7);
  EXPECT_EQ(replica_->waiting_count(), 1u);
  EXPECT_EQ(replica_->waiting_slot(0), c);
  // Not here any more; a running request cannot be withdrawn.
  EXPECT_EQ(replica_->WithdrawWaiting(pool_[b].request.id), Replica::kNoSlot);
  EXPECT_EQ(replica_->WithdrawWaiting(pool_[a].request.id), Replica::kNoSlot);
  now_ += sim::FromSeconds(0.01);
  replica_->FinishIteration(now_, *this);
  RunToIdle();
  EXPECT_EQ(completed_, (std::vector<uint32_t>{a, c}));
  EXPECT_EQ(load_.waiting + load_.running, 0u);
  EXPECT_EQ(load_.prefill_tokens + load_.decode_tokens, 0);
  EXPECT_EQ(replica_->kv_cache().used_blocks(), replica_->kv_cache().cached_blocks());
  EXPECT_EQ(replica_->kv_cache().CheckInvariants(), "");
  EXPECT_FALSE(pool_[b].ever_admitted);
}

// A preempted request waits again but has been scheduled: it stays.
TEST_F(ReplicaTest, PreemptedRequestCannotBeWithdrawn) {
  Make(SchedulerConfig{}, 17);
  Add(128, 100, 1, 0);
  uint32_t newer = Add(128, 100, 2, 0);
  while (replica_->counters().preemptions == 0) {
    now_ += replica_->StartIteration(now_, *this);
    replica_->FinishIteration(now_, *this);
  }
  ASSERT_EQ(replica_->waiting_count(), 1u);
  ASSERT_EQ(replica_->waiting_slot(0), newer);
  EXPECT_EQ(replica_->WithdrawWaiting(pool_[newer].request.id), Replica::kNoSlot);
  EXPECT_EQ(load_.waiting, 1u);
  RunToIdle();
  EXPECT_EQ(completed_.size(), 2u);
}

TEST_F(ReplicaTest, RequestLargerThanThePoolIsRefused) {
  Make(SchedulerConfig{}, 10);
  uint32_t slot = pool_.Acquire();
  pool_[slot].request.prompt_tokens = 200;
  pool_[slot].request.output_tokens = 1;
  EXPECT_FALSE(replica_->Enqueue(slot, now_));
  EXPECT_EQ(load_.waiting, 0u);
}

// vLLM's AsyncScheduler forms batch N+1 while batch N runs: a request that
// reaches a busy replica during N cannot be in N+1, only in N+2.
TEST_F(ReplicaTest, AsyncSchedulingAdmitsALateArrivalOneIterationLater) {
  for (bool async : {false, true}) {
    Make(
        SchedulerConfig{
            .max_num_batched_tokens = 512, .max_num_seqs = 8, .async_scheduling = async},
        200);
    now_ = 0;
    Add(100, 5, 1, 0);
    sim::Time d = replica_->StartIteration(now_, *this);  // iteration 1: [0, 10 ms)
    now_ = d / 2;
    const uint32_t late = Add(32, 2, 2, 0);  // arrives while iteration 1 runs
    now_ = d;
    replica_->FinishIteration(now_, *this);
    now_ += replica_->StartIteration(now_, *this);  // iteration 2
    replica_->FinishIteration(now_, *this);
    replica_->StartIteration(now_, *this);  // iteration 3
    EXPECT_EQ(admitted_at_.at(late), async ? 2 * d : d) << (async ? "async" : "sync");
    replica_->FinishIteration(now_ + d, *this);
    now_ += d;
    RunToIdle();
    admitted_at_.clear();
  }
}

// An idle replica starts at once, and an iteration left empty by the lag is
// formed again with every waiting request.
TEST_F(ReplicaTest, AsyncSchedulingNeverIdlesWithWorkWaiting) {
  Make(SchedulerConfig{.max_num_batched_tokens = 512, .max_num_seqs = 1, .async_scheduling = true},
       200);
  const uint32_t first = Add(32, 1, 1, 0);
  sim::Time d = replica_->StartIteration(now_, *this);
  EXPECT_EQ(admitted_at_.at(first), 0);
  now_ = d / 2;
  const uint32_t second = Add(32, 1, 2, 0);
  now_ = d;
  replica_->FinishIteration(now_, *this);  // the first completes
  EXPECT_GT(replica_->StartIteration(now_, *this), 0);
  EXPECT_EQ(admitted_at_.at(second), d);
}

}  // namespace
}  // namespace kvroute::models
