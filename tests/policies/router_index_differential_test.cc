// The routers' run-based prefix indexes against the per-block originals they
// replaced (tests/oracle/): random prompts of shared system prompts, documents
// and sessions, recorded on random replicas with capacities small enough to
// evict and TTLs short enough to expire, replicas cleared as after a failure;
// every depth, walk count, match, owner and size both give is compared. The
// run index is also fed requests, whose prompts it hashes only as far as it
// holds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request.h"
#include "policies/block_radix_tree.h"
#include "policies/router_prefix_index.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"
#include "tests/oracle/block_lru.h"
#include "tests/oracle/block_radix_tree.h"
#include "tests/oracle/block_router_prefix_index.h"

namespace kvroute::policies {
namespace {

// Prompts of a few segments: a system prompt, maybe a document, then new
// tokens or an earlier prompt continued (a session's next turn), with 4-token
// blocks so segments end inside blocks. Queries also cut prompts short.
class Prompts {
 public:
  explicit Prompts(uint64_t seed) : rng_(seed, "test.router_index_differential") {}

  // A prompt's segments and their chain.
  struct Prompt {
    std::vector<models::PromptSegment> segments;
    std::vector<uint64_t> chain;
  };

  std::vector<uint64_t> Next() { return NextPrompt().chain; }

  Prompt NextPrompt() {
    std::vector<models::PromptSegment> segments;
    if (rng_.Uniform() < 0.3 && !history_.empty()) {
      segments = history_[rng_.UniformInt(history_.size())];
    } else {
      segments.push_back({sim::Combine(1, rng_.UniformInt(5)), Tokens(0, 60)});
      if (rng_.Uniform() < 0.3) segments.push_back({sim::Combine(2, rng_.UniformInt(8)), 16});
    }
    // New tokens, sometimes enough for a leaf left unhashed (prompt_chain.h).
    segments.push_back(
        {sim::Combine(3, next_salt_++), rng_.Uniform() < 0.3 ? Tokens(1, 600) : Tokens(1, 40)});
    if (history_.size() < 40) {
      history_.push_back(segments);
    } else {
      history_[rng_.UniformInt(history_.size())] = segments;
    }
    std::vector<uint64_t> chain;
    models::HashPromptBlocks(segments, 4, &chain);
    if (rng_.Uniform() < 0.2 && !chain.empty()) {
      // Cut short, the segments with it: the tokens of the first blocks kept.
      const uint64_t keep = rng_.UniformInt(chain.size());
      chain.resize(keep);
      uint32_t tokens = static_cast<uint32_t>(keep * 4);
      for (size_t i = 0; i < segments.size(); ++i) {
        segments[i].tokens = std::min(segments[i].tokens, tokens);
        tokens -= segments[i].tokens;
      }
    }
    return {segments, chain};
  }

  sim::RandomStream& rng() { return rng_; }

 private:
  uint32_t Tokens(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(rng_.UniformInt(hi - lo + 1));
  }

  sim::RandomStream rng_;
  uint64_t next_salt_ = 0;
  std::vector<std::vector<models::PromptSegment>> history_;
};

constexpr uint32_t kIndexedReplicas = 6;

// With `lazy`, prompts are recorded and their depths asked from requests
// whose hashes are deferred, so the index holds leaves hashed only when
// reached (replica_run_index.h); the per-block LRUs are given whole chains.
class RouterPrefixIndexDifferentialTest
    : public ::testing::TestWithParam<std::tuple<uint32_t, double, uint64_t, bool>> {};

TEST_P(RouterPrefixIndexDifferentialTest, EveryAnswerMatchesThePerBlockLrus) {
  const auto [capacity, ttl_s, seed, lazy] = GetParam();
  auto hasher = std::make_shared<models::SequenceHasher>(4);
  const sim::Time ttl = sim::FromSeconds(ttl_s);
  RouterPrefixIndex index(kIndexedReplicas, capacity, ttl);
  oracle::BlockRouterPrefixIndex reference(kIndexedReplicas, capacity, ttl);
  Prompts prompts(seed);
  sim::RandomStream& rng = prompts.rng();
  sim::Time now = 0;
  std::vector<uint32_t> counts(kIndexedReplicas), expected(kIndexedReplicas),
      depths(kIndexedReplicas), request_depths(kIndexedReplicas);
  uint64_t deep = 0;
  for (int step = 0; step < 6000; ++step) {
    now += sim::FromSeconds(rng.Exponential(20));
    const Prompts::Prompt prompt = prompts.NextPrompt();
    const std::vector<uint64_t>& chain = prompt.chain;
    models::Request request;
    request.hashes.HashLater(hasher, prompt.segments, {});
    const double u = rng.Uniform();
    if (u < 0.5) {
      const uint32_t r = static_cast<uint32_t>(rng.UniformInt(kIndexedReplicas));
      if (lazy) {
        index.Record(r, request.hashes, now);
      } else {
        index.Record(r, chain, now);
      }
      reference.Record(r, chain, now);
    } else if (u < 0.505) {
      const uint32_t r = static_cast<uint32_t>(rng.UniformInt(kIndexedReplicas));
      index.Clear(r);
      reference.Clear(r);
    } else {
      // Each kind of query in turn comes first, and so meets the leaves not
      // hashed yet.
      auto ask_request = [&] {
        for (uint32_t r = 0; r < kIndexedReplicas; ++r) {
          request_depths[r] = index.Depth(r, request.hashes, now);
        }
      };
      if (lazy && step % 3 == 0) ask_request();
      if (step % 3 == 2) index.Depths(chain, now, depths);
      index.WalkCounts(chain, now, counts);
      reference.WalkCounts(chain, now, expected);
      ASSERT_EQ(counts, expected) << "step " << step;
      if (step % 3 != 2) index.Depths(chain, now, depths);
      if (lazy && step % 3 != 0) ask_request();
      for (uint32_t r = 0; r < kIndexedReplicas; ++r) {
        const uint32_t depth = reference.Depth(r, chain, now);
        ASSERT_EQ(index.Depth(r, chain, now), depth) << "step " << step << " replica " << r;
        if (lazy) {
          ASSERT_EQ(request_depths[r], depth) << "step " << step << " replica " << r;
        }
        ASSERT_EQ(depths[r], depth) << "step " << step << " replica " << r;
        deep += depth > 8;
      }
    }
    for (uint32_t r = 0; r < kIndexedReplicas; ++r) {
      ASSERT_EQ(index.size(r), reference.size(r)) << "step " << step << " replica " << r;
    }
  }
  EXPECT_GT(deep, 500u);  // queries did find long cached prefixes
}

INSTANTIATE_TEST_SUITE_P(CapacitiesTtlsAndSeeds, RouterPrefixIndexDifferentialTest,
                         ::testing::Combine(::testing::Values(40u, 300u, 100000u),
                                            ::testing::Values(0.0, 3.0), ::testing::Values(1u, 2u),
                                            ::testing::Bool()));

class BlockRadixTreeDifferentialTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(BlockRadixTreeDifferentialTest, EveryAnswerMatchesThePerBlockTree) {
  BlockRadixTree tree(kIndexedReplicas);
  oracle::BlockRadixTree reference(kIndexedReplicas);
  Prompts prompts(GetParam());
  sim::RandomStream& rng = prompts.rng();
  sim::Time now = 0;
  uint64_t matched = 0;
  for (int step = 0; step < 8000; ++step) {
    // Coarse times, so that many blocks share one and eviction breaks ties by
    // depth and hash.
    if (rng.Uniform() < 0.3) now += sim::FromSeconds(1);
    const std::vector<uint64_t> chain = prompts.Next();
    const double u = rng.Uniform();
    if (u < 0.45) {
      const uint32_t t = static_cast<uint32_t>(rng.UniformInt(kIndexedReplicas));
      tree.Insert(chain, t, now);
      reference.Insert(chain, t, now);
    } else if (u < 0.9) {
      const BlockRadixTree::Match got = tree.PrefixMatch(chain, now);
      const oracle::BlockRadixTree::Match want = reference.PrefixMatch(chain, now);
      ASSERT_EQ(got.blocks, want.blocks) << "step " << step;
      ASSERT_EQ(got.tenant, want.tenant) << "step " << step;
      matched += got.blocks;
      for (uint32_t t = 0; t < kIndexedReplicas; ++t) {
        ASSERT_EQ(tree.TenantMatch(t, chain), reference.TenantMatch(t, chain)) << "step " << step;
      }
    } else {
      const uint32_t limit = 20 + static_cast<uint32_t>(rng.UniformInt(200));
      tree.EvictBySize(limit);
      reference.EvictBySize(limit);
    }
    for (uint32_t t = 0; t < kIndexedReplicas; ++t) {
      ASSERT_EQ(tree.TenantSize(t), reference.TenantSize(t)) << "step " << step << " tenant " << t;
    }
    ASSERT_EQ(tree.SmallestTenant(), reference.SmallestTenant());
  }
  EXPECT_GT(matched, 10000u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BlockRadixTreeDifferentialTest, ::testing::Values(1u, 2u, 3u));

// The LRU semantics the run-based index keeps, on one-block chains.
TEST(RouterPrefixIndexTest, EvictsLeastRecentlyUsedAndExpires) {
  using Chain = std::vector<uint64_t>;
  RouterPrefixIndex lru(1, 2, 0);
  lru.Record(0, Chain{1}, 0);
  lru.Record(0, Chain{2}, 0);
  lru.Record(0, Chain{1}, 0);  // 2 is now least recent
  lru.Record(0, Chain{3}, 0);
  EXPECT_EQ(lru.Depth(0, Chain{1}, 0), 1u);
  EXPECT_EQ(lru.Depth(0, Chain{2}, 0), 0u);
  EXPECT_EQ(lru.Depth(0, Chain{3}, 0), 1u);

  RouterPrefixIndex ttl(1, 10, sim::FromSeconds(120));
  ttl.Record(0, Chain{7}, 0);
  EXPECT_EQ(ttl.Depth(0, Chain{7}, sim::FromSeconds(119)), 1u);
  EXPECT_EQ(ttl.Depth(0, Chain{7}, sim::FromSeconds(120)), 0u);
}

// The oracle's own LRU.
TEST(BlockLruTest, EvictsLeastRecentlyUsedAndExpires) {
  oracle::BlockLru lru(2, 0);
  lru.Touch(1, 0);
  lru.Touch(2, 0);
  lru.Touch(1, 0);  // 2 is now least recent
  lru.Touch(3, 0);
  EXPECT_TRUE(lru.Contains(1, 0));
  EXPECT_FALSE(lru.Contains(2, 0));
  EXPECT_TRUE(lru.Contains(3, 0));

  oracle::BlockLru ttl(10, sim::FromSeconds(120));
  ttl.Touch(7, 0);
  EXPECT_TRUE(ttl.Contains(7, sim::FromSeconds(119)));
  EXPECT_FALSE(ttl.Contains(7, sim::FromSeconds(120)));
}

}  // namespace
}  // namespace kvroute::policies
