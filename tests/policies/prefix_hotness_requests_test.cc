// DualMap's adaptive key read from requests, whose prompts are hashed only as
// far as the key reads (PrefixHotness::Observe and Peek of RequestHashes),
// against the key read from whole chains: the same key for every request of
// random traffic where hot prefixes split and merge back, and a peek leaves
// a request holding no hashes.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request.h"
#include "policies/prefix_hotness.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

TEST(PrefixHotnessRequestsTest, TheKeysOfWholeChains) {
  const PrefixHotness::Config config{.blocks_per_level = 4,
                                     .extend_share = 0.2,
                                     .shrink_share = 0.1,
                                     .window = sim::FromSeconds(30)};
  PrefixHotness from_requests(config), from_chains(config);
  auto hasher = std::make_shared<models::SequenceHasher>(16);
  sim::RandomStream rng(23, "test.prefix_hotness_requests");
  sim::Time now = 0;
  uint64_t unique = 0, deep_keys = 0;
  for (int i = 0; i < 20000; ++i) {
    now += sim::FromSeconds(rng.Exponential(0.1));
    // A few system prompts (some far hotter than others, so their prefixes
    // split), sometimes a shared document, then new tokens of any length.
    std::vector<models::PromptSegment> segments;
    const uint64_t system = rng.Uniform() < 0.5 ? 0 : rng.UniformInt(6);
    segments.push_back({sim::Combine(1, system), static_cast<uint32_t>(40 + 16 * system)});
    if (rng.Uniform() < 0.3) segments.push_back({sim::Combine(2, rng.UniformInt(3)), 300});
    segments.push_back({sim::Combine(3, ++unique), static_cast<uint32_t>(rng.UniformInt(2000))});
    std::vector<uint64_t> chain;
    models::HashPromptBlocks(segments, 16, &chain);
    models::Request request;
    request.hashes.HashLater(hasher, segments, {});

    const PrefixHotness::Key peeked = from_requests.Peek(request.hashes);
    ASSERT_TRUE(request.hashes.pending()) << "request " << i;
    ASSERT_FALSE(request.hashes.Forget()) << "request " << i;  // it holds nothing
    const PrefixHotness::Key want_peek = from_chains.Peek(chain);
    ASSERT_EQ(peeked.hash, want_peek.hash) << "request " << i;
    ASSERT_EQ(peeked.levels, want_peek.levels) << "request " << i;

    const PrefixHotness::Key got = from_requests.Observe(request.hashes, now);
    const PrefixHotness::Key want = from_chains.Observe(chain, now);
    ASSERT_EQ(got.hash, want.hash) << "request " << i;
    ASSERT_EQ(got.levels, want.levels) << "request " << i;
    deep_keys += got.levels > 1;
  }
  EXPECT_GT(deep_keys, 1000u);  // hot prefixes were split
}

}  // namespace
}  // namespace kvroute::policies
