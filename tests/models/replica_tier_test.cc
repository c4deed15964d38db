// A replica with a host-memory KV tier (models/kv_tier.h): a prompt pushed out
// of HBM is loaded back from DRAM instead of recomputed, and the iteration
// that first schedules it waits for the load.
#include <gtest/gtest.h>

#include <memory>

#include "models/replica.h"
#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr sim::Time kIteration = 10'000'000;  // 10 ms, every iteration

class ReplicaTierTest : public ::testing::Test, public ReplicaObserver {
 protected:
  // 20 HBM blocks of 16 tokens; a DRAM tier of 100 blocks of 1 MiB each, at
  // 1 GB/s after 5 us, when `rule` is given.
  void Make(const OffloadRule* rule) {
    SchedulerConfig config{.max_num_batched_tokens = 2048, .max_num_seqs = 8};
    if (rule != nullptr) {
      config.kv_tier = KvTierConfig{.capacity_blocks = 100,
                                    .bytes_per_block = 1 << 20,
                                    .bandwidth_bytes_per_s = 1e9,
                                    .latency = 5'000,
                                    .offload = *rule};
    }
    replica_ = std::make_unique<Replica>(0, cost_, config, 20, 16, pool_, load_);
  }

  // A prompt of 10 full blocks (160 tokens) whose content is `tag`'s, and one
  // output token.
  uint32_t Add(uint64_t tag) {
    const uint32_t slot = pool_.Acquire();
    Request& r = pool_[slot].request;
    r.id = next_id_++;
    r.prompt_tokens = 160;
    r.output_tokens = 1;
    uint64_t h = 1;
    for (uint32_t j = 0; j < 10; ++j) {
      r.block_hashes.push_back(h = sim::ChainBlockHash(h, sim::Combine(tag, j)));
    }
    EXPECT_TRUE(replica_->Enqueue(slot, now_));
    return slot;
  }

  // Runs one request alone; returns the length of its only iteration.
  sim::Time RunAlone(uint64_t tag) {
    last_ = Add(tag);
    const sim::Time d = replica_->StartIteration(now_, *this);
    now_ += d;
    replica_->FinishIteration(now_, *this);
    EXPECT_TRUE(replica_->idle());
    EXPECT_EQ(replica_->kv_cache().CheckInvariants(), "");
    if (replica_->host_tier() != nullptr) {
      EXPECT_EQ(replica_->host_tier()->CheckInvariants(), "");
    }
    return d;
  }

  void OnAdmitted(uint32_t slot, sim::Time) override {
    hit_tokens_ = pool_[slot].hit_tokens;
    host_hit_tokens_ = pool_[slot].host_hit_tokens;
  }
  void OnFirstToken(uint32_t, sim::Time) override {}
  void OnCompleted(uint32_t slot, sim::Time) override { pool_.Release(slot); }

  FixedCostModel cost_{kIteration};
  RequestPool pool_;
  ReplicaLoad load_;
  std::unique_ptr<Replica> replica_;
  sim::Time now_ = 0;
  uint64_t next_id_ = 0;
  uint32_t last_ = 0;
  uint32_t hit_tokens_ = 0, host_hit_tokens_ = 0;
};

// A, then B and C push A out of 20 HBM blocks (each holds its ten prompt
// blocks; the output token needs no block of its own), then A again.
TEST_F(ReplicaTierTest, WithoutATierTheEvictedPromptIsRecomputed) {
  Make(nullptr);
  for (uint64_t tag : {1, 2, 3}) EXPECT_EQ(RunAlone(tag), kIteration);
  EXPECT_EQ(RunAlone(1), kIteration);
  EXPECT_EQ(hit_tokens_, 0u);
  EXPECT_EQ(replica_->counters().prefill_tokens_computed, 4 * 160u);
  EXPECT_EQ(replica_->host_tier(), nullptr);
}

TEST_F(ReplicaTierTest, OnEvictLoadsTheEvictedPromptBackAndWaitsForIt) {
  const OffloadRule rule = OffloadRule::kOnEvict;
  Make(&rule);
  for (uint64_t tag : {1, 2, 3}) EXPECT_EQ(RunAlone(tag), kIteration);
  // B fit beside A; C evicted all of A's ten blocks.
  EXPECT_EQ(replica_->host_tier()->held_blocks(), 10u);
  // A's nine blocks before its last token come back (the last token is always
  // computed, so its block is not loaded): 9 x 1 MiB / 1 GB/s + 5 us.
  const sim::Time load = 5'000 + 9'437'184;
  EXPECT_EQ(RunAlone(1), kIteration + load);
  EXPECT_EQ(hit_tokens_, 144u);
  EXPECT_EQ(host_hit_tokens_, 144u);
  EXPECT_EQ(replica_->counters().prefill_tokens_computed, 3 * 160u + 16);
  const KvTierCounters& c = replica_->host_tier()->counters();
  EXPECT_EQ(c.loaded_blocks, 9u);
  EXPECT_EQ(c.loads, 1u);
  EXPECT_EQ(c.load_time, load);
}

TEST_F(ReplicaTierTest, WriteThroughCopiesEveryCachedBlockAtOnce) {
  const OffloadRule rule = OffloadRule::kWriteThrough;
  Make(&rule);
  EXPECT_EQ(RunAlone(1), kIteration);
  EXPECT_EQ(replica_->host_tier()->held_blocks(), 10u);  // no eviction needed
  EXPECT_EQ(RunAlone(1), kIteration);                    // all in HBM: nothing to load
  EXPECT_EQ(hit_tokens_, 144u);
  EXPECT_EQ(host_hit_tokens_, 0u);
  EXPECT_EQ(replica_->host_tier()->counters().stored_blocks, 10u);  // not copied twice
}

TEST_F(ReplicaTierTest, AFailedReplicaLosesItsHostTierToo) {
  const OffloadRule rule = OffloadRule::kWriteThrough;
  Make(&rule);
  RunAlone(1);
  std::vector<uint32_t> dropped;
  replica_->Fail(now_, &dropped);
  EXPECT_EQ(replica_->host_tier()->held_blocks(), 0u);
  EXPECT_EQ(RunAlone(1), kIteration);
  EXPECT_EQ(hit_tokens_, 0u);
}

}  // namespace
}  // namespace kvroute::models
