// A replica with a host-memory KV tier (models/kv_tier.h): a prompt pushed out
// of HBM is loaded back from DRAM (or, pushed out of DRAM too, read from SSD
// through DRAM) instead of recomputed, and the iteration that first schedules
// it waits for the load.
#include <gtest/gtest.h>

#include <memory>

#include "models/replica.h"
#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr sim::Time kIteration = 10'000'000;  // 10 ms, every iteration

class ReplicaTierTest : public ::testing::Test, public ReplicaObserver {
 protected:
  // 20 HBM blocks of 16 tokens; a DRAM tier of `dram` blocks of 1 MiB each,
  // at 1 GB/s after 5 us, when `rule` is given; below it an SSD tier of `ssd`
  // blocks read at 0.5 GB/s after 80 us.
  void Make(const OffloadRule* rule, uint32_t dram = 100, uint32_t ssd = 0) {
    SchedulerConfig config{.max_num_batched_tokens = 2048, .max_num_seqs = 8};
    if (rule != nullptr) {
      config.kv_tier = KvTierConfig{.capacity_blocks = dram,
                                    .bytes_per_block = 1 << 20,
                                    .bandwidth_bytes_per_s = 1e9,
                                    .latency = 5'000,
                                    .offload = *rule};
      config.ssd_tier = config.kv_tier;
      config.ssd_tier.capacity_blocks = ssd;
      config.ssd_tier.bandwidth_bytes_per_s = 0.5e9;
      config.ssd_tier.latency = 80'000;
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
      r.hashes.mutable_prompt()->push_back(h = sim::ChainBlockHash(h, sim::Combine(tag, j)));
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
    if (replica_->ssd_tier() != nullptr) {
      EXPECT_EQ(replica_->ssd_tier()->CheckInvariants(), "");
    }
    return d;
  }

  void OnAdmitted(uint32_t slot, sim::Time) override {
    hit_tokens_ = pool_[slot].hit_tokens;
    host_hit_tokens_ = pool_[slot].host_hit_tokens;
    ssd_hit_tokens_ = pool_[slot].ssd_hit_tokens;
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
  uint32_t hit_tokens_ = 0, host_hit_tokens_ = 0, ssd_hit_tokens_ = 0;
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

// DRAM of 10 blocks, SSD of 100, on_evict. C pushes A out of HBM into DRAM;
// D pushes B into DRAM, whose LRU drops all of A to SSD. A again: its nine
// blocks before the last token are read from SSD into DRAM and copied on to
// HBM in one load.
TEST_F(ReplicaTierTest, AnSsdHitIsReadThroughDramAndWaitedFor) {
  const OffloadRule rule = OffloadRule::kOnEvict;
  Make(&rule, 10, 100);
  for (uint64_t tag : {1, 2, 3, 4}) EXPECT_EQ(RunAlone(tag), kIteration);
  EXPECT_EQ(replica_->ssd_tier()->held_blocks(), 10u);  // A
  // SSD: 80 us + 9 MiB / 0.5 GB/s = 80,000 + 18,874,368 ns; then DRAM to
  // HBM: 5 us + 9 MiB / 1 GB/s = 5,000 + 9,437,184 ns.
  const sim::Time ssd_read = 80'000 + 18'874'368;
  const sim::Time dram_copy = 5'000 + 9'437'184;
  EXPECT_EQ(RunAlone(1), kIteration + ssd_read + dram_copy);
  EXPECT_EQ(hit_tokens_, 144u);
  EXPECT_EQ(host_hit_tokens_, 0u);
  EXPECT_EQ(ssd_hit_tokens_, 144u);
  EXPECT_EQ(replica_->counters().prefill_tokens_computed, 4 * 160u + 16);
  const KvTierCounters& s = replica_->ssd_tier()->counters();
  EXPECT_EQ(s.loaded_blocks, 9u);
  EXPECT_EQ(s.loads, 1u);
  EXPECT_EQ(s.load_time, ssd_read);
  const KvTierCounters& d = replica_->host_tier()->counters();
  EXPECT_EQ(d.loaded_blocks, 9u);  // what SSD sent crossed the host link
  EXPECT_EQ(d.load_time, dram_copy);
  EXPECT_EQ(d.promoted_blocks, 9u);
  // A's admission evicted C from HBM into DRAM (dropping B to SSD), and the
  // nine promoted blocks dropped nine of C's: SSD got A, B and those nine.
  EXPECT_EQ(d.dropped_blocks, 29u);
  EXPECT_EQ(s.stored_blocks, 29u);
  EXPECT_EQ(replica_->ssd_tier()->held_blocks(), 29u);
  // A's blocks are now in DRAM too: a further eviction would find them there.
  EXPECT_EQ(replica_->host_tier()->held_blocks(), 10u);
}

TEST_F(ReplicaTierTest, AFailedReplicaLosesItsHostTierToo) {
  const OffloadRule rule = OffloadRule::kWriteThrough;
  Make(&rule);
  RunAlone(1);
  std::vector<uint32_t> dropped;
  replica_->Fail(now_, &dropped);
  EXPECT_EQ(replica_->host_tier()->held_blocks(), 0u);
  EXPECT_EQ(replica_->ssd_tier(), nullptr);
  EXPECT_EQ(RunAlone(1), kIteration);
  EXPECT_EQ(hit_tokens_, 0u);
}

TEST_F(ReplicaTierTest, AFailedReplicaLosesItsSsdIndexToo) {
  const OffloadRule rule = OffloadRule::kWriteThrough;
  Make(&rule, 10, 100);
  RunAlone(1);
  EXPECT_EQ(replica_->ssd_tier()->held_blocks(), 10u);  // written through
  std::vector<uint32_t> dropped;
  replica_->Fail(now_, &dropped);
  EXPECT_EQ(replica_->ssd_tier()->held_blocks(), 0u);
  EXPECT_EQ(replica_->ssd_tier()->counters().dropped_blocks, 10u);
  EXPECT_EQ(replica_->ssd_tier()->CheckInvariants(), "");
}

}  // namespace
}  // namespace kvroute::models
