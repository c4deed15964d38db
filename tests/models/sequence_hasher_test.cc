// SequenceHasher's memory of long segments against hashing afresh
// (HashSequenceBlocks): the same hashes on every request, whether a segment
// is new, seen once, kept, or pushed out of its table slot by another.
#include <gtest/gtest.h>

#include <vector>

#include "models/prompt_blocks.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

TEST(SequenceHasherTest, EveryRequestHashesAsAfresh) {
  constexpr uint32_t kBlock = 16;
  SequenceHasher memo(kBlock);
  sim::RandomStream rng(7, "test.sequence_hasher");
  std::vector<uint64_t> prompt, output, want_prompt, want_output;
  uint64_t unique = 0;
  for (int i = 0; i < 30000; ++i) {
    // A few hundred system prompts and documents (they repeat, and more of
    // them than the table has slots for), a share of odd-length ones so a
    // segment starts inside a block, then new tokens and an output.
    std::vector<PromptSegment> segments;
    segments.push_back({sim::Combine(1, rng.UniformInt(600)),
                        static_cast<uint32_t>(128 + 16 * rng.UniformInt(200) + rng.UniformInt(2))});
    if (rng.Uniform() < 0.5) {
      segments.push_back({sim::Combine(2, rng.UniformInt(50)), 500});
    }
    segments.push_back({sim::Combine(3, ++unique), static_cast<uint32_t>(rng.UniformInt(600))});
    const PromptSegment out{sim::Combine(4, ++unique), static_cast<uint32_t>(rng.UniformInt(300))};
    memo.Hash(segments, out, &prompt, &output);
    HashSequenceBlocks(segments, out, kBlock, &want_prompt, &want_output);
    ASSERT_EQ(prompt, want_prompt) << "request " << i;
    ASSERT_EQ(output, want_output) << "request " << i;
  }
}

TEST(SequenceHasherTest, ASegmentSeenAgainHashesTheSame) {
  SequenceHasher memo(4);
  std::vector<uint64_t> prompt, output, first;
  const std::vector<PromptSegment> segments{{11, 100}, {12, 3}};
  for (int i = 0; i < 4; ++i) {  // new, seen once, kept, then read back
    memo.Hash(segments, {13, 40}, &prompt, &output);
    if (i == 0) first = prompt;
    EXPECT_EQ(prompt, first) << "time " << i;
    EXPECT_EQ(prompt.size(), 25u);
    EXPECT_EQ(output.size(), 10u);  // 103 + 40 tokens: blocks 26..35
  }
}

}  // namespace
}  // namespace kvroute::models
