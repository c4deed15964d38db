// Generated-token caching (vLLM v1 and SGLang cache full blocks of generated
// tokens): a second turn whose prompt repeats the first turn's prompt and
// output hits the blocks the first turn's output completed.
#include <gtest/gtest.h>

#include <memory>

#include "models/replica.h"
#include "models/workload.h"

namespace kvroute::models {
namespace {

class GeneratedTokenCacheTest : public ::testing::Test, public ReplicaObserver {
 protected:
  // One session of two turns: 100 system + 37 new tokens, then 50 generated;
  // the second turn adds 37 new tokens after them.
  static WorkloadConfig TwoTurns() {
    WorkloadConfig c;
    c.keys = 1;
    c.system_tokens = 100;
    c.new_tokens = LengthDistribution::Fixed(37);
    c.output_tokens = LengthDistribution::Fixed(50);
    c.sessions.turns = LengthDistribution::Fixed(2);
    c.sessions.think_time_s = LengthDistribution::Fixed(100);
    return c;
  }

  // Serves the two turns one after the other; returns the second turn's hit.
  uint32_t SecondTurnHit(bool cache_generated_tokens) {
    SchedulerConfig config;
    config.cache_generated_tokens = cache_generated_tokens;
    Replica replica(0, cost_, config, 1000, 16, pool_, load_);
    WorkloadGenerator workload(TwoTurns(), 1, 0.001, sim::FromSeconds(1e6));
    uint32_t hit = 0;
    for (int turn = 0; turn < 2; ++turn) {
      const uint32_t slot = pool_.Acquire();
      EXPECT_TRUE(workload.Next(&pool_[slot].request));
      EXPECT_TRUE(replica.Enqueue(slot, 0));
      sim::Time now = 0;
      while (sim::Time d = replica.StartIteration(now, *this)) {
        now += d;
        if (turn == 1) hit = pool_[slot].hit_tokens;
        replica.FinishIteration(now, *this);
      }
      EXPECT_EQ(replica.kv_cache().CheckInvariants(), "");
    }
    EXPECT_FALSE(pool_.in_flight());
    return hit;
  }

  void OnAdmitted(uint32_t, sim::Time) override {}
  void OnFirstToken(uint32_t, sim::Time) override {}
  void OnCompleted(uint32_t slot, sim::Time) override { pool_.Release(slot); }

  FixedCostModel cost_{sim::FromSeconds(0.01)};
  RequestPool pool_;
  ReplicaLoad load_;
};

TEST_F(GeneratedTokenCacheTest, TheOutputBlocksHashAsTheNextPromptDoes) {
  WorkloadGenerator workload(TwoTurns(), 1, 0.001, sim::FromSeconds(1e6));
  Request first, second;
  ASSERT_TRUE(workload.Next(&first));
  ASSERT_TRUE(workload.Next(&second));
  ASSERT_EQ(first.session, second.session);
  // 137 prompt + 50 output tokens: 8 prompt blocks, then 3 more full blocks.
  ASSERT_EQ(first.hashes.prompt().size(), 8u);
  ASSERT_EQ(first.hashes.output().size(), 3u);
  ASSERT_EQ(second.prompt_tokens, 224u);
  for (size_t j = 0; j < 11; ++j) {
    uint64_t turn1 = j < 8 ? first.hashes.prompt()[j] : first.hashes.output()[j - 8];
    EXPECT_EQ(second.hashes.prompt()[j], turn1) << "block " << j;
  }
}

TEST_F(GeneratedTokenCacheTest, ASecondTurnHitsTheFirstTurnsOutput) {
  // The first turn computes 137 + 49 tokens (the last sampled token is never
  // fed back): 186 / 16 = 11 full blocks are cached.
  EXPECT_EQ(SecondTurnHit(true), 11u * 16);
}

TEST_F(GeneratedTokenCacheTest, WithoutItOnlyThePromptBlocksHit) {
  EXPECT_EQ(SecondTurnHit(false), 8u * 16);  // 137 / 16 = 8 prompt blocks
}

}  // namespace
}  // namespace kvroute::models
