// SequenceHasher's memory of long segments against hashing afresh
// (HashSequenceBlocks): the same hashes on every request, whether a segment
// is new, seen once, kept, or pushed out of its table slot by another. And
// BlockHasher's loop over whole blocks against the definition it shortcuts:
// one piece of a segment at a time, each piece as long as the block allows.
// And a prompt hashed a prefix at a time against the whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/prompt_blocks.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

// The definition (prompt_blocks.h): a block's content combines the (salt,
// offset, length) of each piece inside it; its hash chains the previous one.
std::vector<uint64_t> HashPieceByPiece(const std::vector<PromptSegment>& segments,
                                       uint32_t block_size) {
  std::vector<uint64_t> out;
  uint64_t chain = kRootBlockHash, content = 0;
  uint32_t filled = 0;
  for (const PromptSegment& segment : segments) {
    for (uint32_t offset = 0; offset < segment.tokens;) {
      const uint32_t piece = std::min(segment.tokens - offset, block_size - filled);
      content = sim::Combine(content, sim::Combine(segment.salt, (uint64_t{offset} << 32) | piece));
      offset += piece;
      filled += piece;
      if (filled == block_size) {
        out.push_back(chain = sim::ChainBlockHash(chain, content));
        content = 0;
        filled = 0;
      }
    }
  }
  return out;
}

TEST(BlockHasherTest, HashesAsTheDefinitionPieceByPiece) {
  sim::RandomStream rng(11, "test.block_hasher");
  std::vector<uint64_t> got;
  for (int i = 0; i < 3000; ++i) {
    const uint32_t block_size = 1 + static_cast<uint32_t>(rng.UniformInt(40));
    std::vector<PromptSegment> segments;
    const int count = 1 + static_cast<int>(rng.UniformInt(6));
    for (int s = 0; s < count; ++s) {
      // Empty, shorter than a block, and many blocks long, on and off the
      // block boundaries.
      const uint32_t tokens = rng.Uniform() < 0.1
                                  ? 0
                                  : static_cast<uint32_t>(rng.UniformInt(3 * block_size + 1) +
                                                          block_size * rng.UniformInt(8));
      segments.push_back({sim::Combine(5, rng.UniformInt(1000)), tokens});
    }
    HashPromptBlocks(segments, block_size, &got);
    ASSERT_EQ(got, HashPieceByPiece(segments, block_size)) << "case " << i;
  }
}

// A segment's first `end` tokens are the tokens of a segment that long,
// wherever the block being filled stands.
TEST(BlockHasherTest, ARangeFromTheStartIsTheSegmentCutShort) {
  sim::RandomStream rng(13, "test.block_hasher_range");
  for (int i = 0; i < 3000; ++i) {
    const uint32_t block_size = 1 + static_cast<uint32_t>(rng.UniformInt(40));
    const PromptSegment before{sim::Combine(6, rng.UniformInt(100)),
                               static_cast<uint32_t>(rng.UniformInt(3 * block_size))};
    const PromptSegment segment{sim::Combine(7, rng.UniformInt(100)),
                                static_cast<uint32_t>(rng.UniformInt(5 * block_size))};
    const auto end = static_cast<uint32_t>(rng.UniformInt(segment.tokens + 1));
    BlockHasher ranged(block_size), whole(block_size);
    std::vector<uint64_t> got, want;
    ranged.Append(before, &got);
    ranged.AppendRange(segment, 0, end, &got);
    whole.Append(before, &want);
    whole.Append({segment.salt, end}, &want);
    ASSERT_EQ(got, want) << "case " << i;
    ASSERT_EQ(ranged.state(), whole.state()) << "case " << i;
  }
}

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

// HashPrefix grown a few blocks at a time, then HashRest, against hashing
// afresh: every prefix is the first hashes of the whole, and the rest gives
// the whole; with one memory over all requests, so that segments are hashed
// new, seen once, kept and read back, whole or cut.
TEST(SequenceHasherTest, PrefixesGrownStepByStepThenTheRestAsAfresh) {
  constexpr uint32_t kBlock = 16;
  SequenceHasher memo(kBlock);
  sim::RandomStream rng(9, "test.sequence_hasher_prefix");
  std::vector<uint64_t> prompt, output, want_prompt, want_output;
  uint64_t unique = 0, cuts = 0;
  for (int i = 0; i < 20000; ++i) {
    // A repeating system prompt (odd lengths, so the next segment starts
    // inside a block), sometimes a repeating document, then new tokens, up to
    // far more blocks than a cut needs.
    std::vector<PromptSegment> segments;
    segments.push_back({sim::Combine(1, rng.UniformInt(300)),
                        static_cast<uint32_t>(16 * rng.UniformInt(200) + rng.UniformInt(3))});
    if (rng.Uniform() < 0.3) segments.push_back({sim::Combine(2, rng.UniformInt(20)), 1500});
    const auto tail = static_cast<uint32_t>(rng.UniformInt(4000));
    segments.push_back({sim::Combine(3, ++unique), tail});
    const PromptSegment out{sim::Combine(4, ++unique), static_cast<uint32_t>(rng.UniformInt(300))};
    HashSequenceBlocks(segments, out, kBlock, &want_prompt, &want_output);

    SequenceHasher::PrefixCursor at;
    prompt.clear();
    uint32_t blocks = 0;
    const int steps = static_cast<int>(rng.UniformInt(4));
    for (int step = 0; step < steps; ++step) {
      blocks += 1 + static_cast<uint32_t>(rng.UniformInt(150));
      memo.HashPrefix(segments, blocks, &at, &prompt);
      ASSERT_GE(prompt.size(), std::min<size_t>(blocks, want_prompt.size())) << "request " << i;
      ASSERT_TRUE(std::equal(prompt.begin(), prompt.end(), want_prompt.begin(),
                             want_prompt.begin() + static_cast<std::ptrdiff_t>(prompt.size())))
          << "request " << i << " step " << step;
      // Inside the new tokens, never seen before, with many blocks after:
      // hashed no further than asked.
      const uint32_t tail_start = (TotalTokens(segments) - tail) / kBlock + 1;
      if (blocks >= tail_start && want_prompt.size() >= blocks + SequenceHasher::kMinCutBlocks) {
        ASSERT_EQ(prompt.size(), blocks) << "request " << i;
        ++cuts;
      }
    }
    memo.HashRest(segments, out, &at, &prompt, &output);
    ASSERT_EQ(prompt, want_prompt) << "request " << i;
    ASSERT_EQ(output, want_output) << "request " << i;
  }
  EXPECT_GT(cuts, 1000u);
}

}  // namespace
}  // namespace kvroute::models
