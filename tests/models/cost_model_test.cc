#include "models/cost_model.h"

#include <gtest/gtest.h>

#include "models/profile.h"

namespace kvroute::models {
namespace {

const Profile& Llama8B() {
  static const Profile profile = FindProfile("h100-llama3.1-8b-bf16");
  return profile;
}

TEST(CostModelTest, ArchitectureCountsMatchThePublishedConfig) {
  const Profile& p = Llama8B();
  // KV bytes/token = 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB (cost-anchors.md).
  EXPECT_EQ(p.KvBytesPerToken(), 131072);
  EXPECT_NEAR(p.model.TotalParams(), 8.03e9, 0.01e9);
  // (80 GB x 0.9 - 4 GB reserve - 16.06 GB weights) / 128 KiB / 16 tokens.
  EXPECT_EQ(p.KvCapacityBlocks(), 24766);
}

TEST(CostModelTest, IterationTimeGrowsWithEachPartOfTheBatch) {
  RooflineCostModel model(Llama8B());
  BatchShape small;
  small.AddDecode(1000);
  BatchShape more_decodes = small;
  for (int i = 0; i < 63; ++i) more_decodes.AddDecode(1000);
  BatchShape longer_context;
  longer_context.AddDecode(100000);
  BatchShape prefill;
  prefill.AddPrefillChunk(0, 4096);
  EXPECT_GT(model.IterationTime(more_decodes), model.IterationTime(small));
  EXPECT_GT(model.IterationTime(longer_context), model.IterationTime(small));
  EXPECT_GT(model.IterationTime(prefill), model.IterationTime(more_decodes));
}

TEST(CostModelTest, DecodeIterationIsInLlmdRangeForEightB) {
  // 32 decodes at ~1.3k context: llm-d inference-sim gives 10-15 ms ITL for
  // 7-8B on H100 (cost-anchors.md).
  RooflineCostModel model(Llama8B());
  BatchShape batch;
  for (int i = 0; i < 32; ++i) batch.AddDecode(1300);
  double ms = sim::ToSeconds(model.IterationTime(batch)) * 1e3;
  EXPECT_GE(ms, 10);
  EXPECT_LE(ms, 15);
}

TEST(CostModelTest, PrefillAttentionContextCountsCachedPrefix) {
  BatchShape b;
  b.AddPrefillChunk(/*context_before=*/100, /*tokens=*/3);
  // Tokens see 101, 102 and 103 positions.
  EXPECT_DOUBLE_EQ(b.prefill_attention_context, 306);
  EXPECT_EQ(b.prefill_tokens, 3);
}

TEST(CostModelTest, FixedModelIgnoresTheBatch) {
  FixedCostModel model(sim::FromSeconds(0.05));
  BatchShape a, b;
  a.AddDecode(1);
  b.AddPrefillChunk(0, 8000);
  EXPECT_EQ(model.IterationTime(a), model.IterationTime(b));
}

TEST(ProfileTest, UnknownProfileListsTheValidOnes) {
  try {
    FindProfile("h100-llama-typo");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("h100-llama3.1-8b-bf16"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvroute::models
