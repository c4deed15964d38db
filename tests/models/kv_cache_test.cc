#include "models/kv_cache.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

// A chain of `n` blocks whose contents are `tag`-specific after `shared`
// leading blocks that every tag has in common.
std::vector<uint64_t> Chain(uint32_t n, uint64_t tag, uint32_t shared = 0) {
  std::vector<uint64_t> chain;
  uint64_t h = 1;
  for (uint32_t j = 0; j < n; ++j) {
    h = sim::ChainBlockHash(h, j < shared ? sim::Mix64(j) : sim::Combine(tag, j));
    chain.push_back(h);
  }
  return chain;
}

class KvCacheTest : public ::testing::Test {
 protected:
  // Admits a request for `chain` (no output blocks), computes it, and finishes it.
  uint32_t Serve(const std::vector<uint64_t>& chain) {
    KvHandle h;
    EXPECT_TRUE(cache_.Admit(chain, static_cast<uint32_t>(chain.size()), UINT32_MAX, &h));
    uint32_t hit = h.hit_blocks;
    cache_.Register(chain, static_cast<uint32_t>(chain.size()), &h);
    cache_.Release(&h);
    EXPECT_EQ(cache_.CheckInvariants(), "");
    return hit;
  }
  KvCache cache_{8};
};

TEST_F(KvCacheTest, MissThenInsertThenHit) {
  auto a = Chain(3, 1);
  EXPECT_EQ(cache_.MatchPrefix(a), 0u);
  EXPECT_EQ(Serve(a), 0u);
  EXPECT_EQ(cache_.MatchPrefix(a), 3u);
  EXPECT_EQ(Serve(a), 3u);
}

TEST_F(KvCacheTest, HitStopsAtFirstDifferentBlock) {
  Serve(Chain(4, 1, /*shared=*/2));
  EXPECT_EQ(cache_.MatchPrefix(Chain(4, 2, /*shared=*/2)), 2u);
}

TEST_F(KvCacheTest, MaxHitBlocksCapsTheServedHit) {
  auto a = Chain(3, 1);
  Serve(a);
  KvHandle h;
  ASSERT_TRUE(cache_.Admit(a, 3, /*max_hit_blocks=*/2, &h));
  EXPECT_EQ(h.hit_blocks, 2u);
  cache_.Release(&h);
}

TEST_F(KvCacheTest, EvictsLeastRecentlyReleasedLeavesFirst) {
  auto a = Chain(3, 1), b = Chain(3, 2);
  Serve(a);  // released first: a2, a1, a0
  Serve(b);  // then b2, b1, b0
  EXPECT_EQ(cache_.EvictionList(), (std::vector<uint64_t>{a[2], a[1], a[0], b[2], b[1], b[0]}));
  // Five new blocks: the two free ones, then a's whole chain, tail first.
  Serve(Chain(5, 3));
  EXPECT_EQ(cache_.MatchPrefix(a), 0u);
  EXPECT_EQ(cache_.MatchPrefix(b), 3u);
  EXPECT_EQ(cache_.counters().evictions, 3u);
}

TEST_F(KvCacheTest, SharedPrefixOutlivesItsLeaves) {
  auto a = Chain(4, 1, /*shared=*/2), b = Chain(4, 2, /*shared=*/2);
  Serve(a);
  Serve(b);  // reuses a0, a1; releases b3, b2, then the shared blocks again
  // a's own tail is oldest; the shared prefix was released last.
  EXPECT_EQ(cache_.EvictionList(), (std::vector<uint64_t>{a[3], a[2], b[3], b[2], b[1], b[0]}));
}

TEST_F(KvCacheTest, PinnedBlocksAreNeverEvicted) {
  auto a = Chain(6, 1);
  KvHandle running;
  ASSERT_TRUE(cache_.Admit(a, 6, UINT32_MAX, &running));
  cache_.Register(a, 6, &running);
  KvHandle other;
  EXPECT_FALSE(cache_.Admit(Chain(3, 2), 3, UINT32_MAX, &other));  // 2 free, 0 evictable
  EXPECT_FALSE(other.active);
  EXPECT_EQ(cache_.MatchPrefix(a), 6u);
  cache_.Release(&running);
  EXPECT_TRUE(cache_.Admit(Chain(3, 2), 3, UINT32_MAX, &other));
  EXPECT_EQ(cache_.CheckInvariants(), "");
}

TEST_F(KvCacheTest, ADuplicateRegistrationSharesTheCachedBlock) {
  auto a = Chain(3, 1);
  KvHandle first, second;
  ASSERT_TRUE(cache_.Admit(a, 3, UINT32_MAX, &first));
  ASSERT_TRUE(cache_.Admit(a, 3, UINT32_MAX, &second));  // both missed: 6 blocks reserved
  EXPECT_EQ(cache_.used_blocks(), 6u);
  cache_.Register(a, 3, &first);
  cache_.Register(a, 3, &second);  // computed twice, cached once
  EXPECT_EQ(cache_.cached_blocks(), 3u);
  EXPECT_EQ(cache_.used_blocks(), 3u);
  cache_.Release(&first);
  cache_.Release(&second);
  EXPECT_EQ(cache_.evictable_blocks(), 3u);
  EXPECT_EQ(cache_.CheckInvariants(), "");
}

// vLLM's free queue: a freed uncached block waits behind older cached blocks,
// so taking two blocks evicts the cached prefix that radix LRU would keep.
TEST(KvCacheEvictionOrderTest, VllmFreeQueueEvictsCachedBlocksBeforeQueuedFreeOnes) {
  for (EvictionOrder order : {EvictionOrder::kRadixLru, EvictionOrder::kVllmFreeQueue}) {
    KvCache cache(4, order);
    auto a = Chain(2, 1);
    KvHandle h;
    ASSERT_TRUE(cache.Admit(a, 2, UINT32_MAX, &h));
    cache.Register(a, 2, &h);
    cache.Release(&h);                       // a0, a1 cached and unpinned
    ASSERT_TRUE(cache.Admit({}, 2, 0, &h));  // two uncached blocks
    cache.Release(&h);
    EXPECT_EQ(cache.CheckInvariants(), "");
    ASSERT_TRUE(cache.Admit({}, 2, 0, &h));
    bool vllm = order == EvictionOrder::kVllmFreeQueue;
    EXPECT_EQ(cache.MatchPrefix(a), vllm ? 0u : 2u);
    EXPECT_EQ(cache.counters().evictions, vllm ? 2u : 0u);
    cache.Release(&h);
    EXPECT_EQ(cache.CheckInvariants(), "");
  }
}

// Many overlapping requests in flight at once: the pool never exceeds its
// capacity, the eviction list head is always a leaf, and everything is
// returned at the end.
class KvCacheStressTest : public ::testing::TestWithParam<EvictionOrder> {};

TEST_P(KvCacheStressTest, InvariantsHoldUnderRandomTraffic) {
  KvCache cache(300, GetParam());
  sim::RandomStream rng(5, "test.kv_cache");
  std::vector<std::pair<KvHandle, std::vector<uint64_t>>> running;
  for (int step = 0; step < 20000; ++step) {
    if (running.size() < 12 && rng.Uniform() < 0.55) {
      uint64_t key = rng.UniformInt(20);
      uint32_t shared = static_cast<uint32_t>(rng.UniformInt(12));
      // Chains of one key share their first `shared` blocks; the rest are new.
      uint32_t n = shared + static_cast<uint32_t>(rng.UniformInt(10));
      std::vector<uint64_t> chain;
      uint64_t hash = 1;
      for (uint32_t j = 0; j < n; ++j) {
        uint64_t content = j < shared ? sim::Combine(key, j) : sim::Combine(1000000 + step, j);
        chain.push_back(hash = sim::ChainBlockHash(hash, content));
      }
      uint32_t total = static_cast<uint32_t>(chain.size() + rng.UniformInt(4));
      KvHandle h;
      if (cache.Admit(chain, total, UINT32_MAX, &h)) {
        uint32_t upto = static_cast<uint32_t>(rng.UniformInt(chain.size() + 1));
        cache.Register(chain, std::max(upto, h.registered_blocks()), &h);
        running.emplace_back(std::move(h), std::move(chain));
      }
    } else if (!running.empty()) {
      size_t i = rng.UniformInt(running.size());
      auto& [h, chain] = running[i];
      cache.Register(chain, static_cast<uint32_t>(chain.size()), &h);
      cache.Release(&h);
      running.erase(running.begin() + static_cast<long>(i));
    }
    ASSERT_LE(cache.used_blocks(), cache.capacity_blocks());
    if (step % 50 == 0) {
      ASSERT_EQ(cache.CheckInvariants(), "") << "step " << step;
    }
  }
  for (auto& [h, chain] : running) cache.Release(&h);
  EXPECT_EQ(cache.used_blocks(), cache.cached_blocks());
  EXPECT_EQ(cache.evictable_blocks(), cache.cached_blocks());
  EXPECT_EQ(cache.CheckInvariants(), "");
}

INSTANTIATE_TEST_SUITE_P(BothEvictionOrders, KvCacheStressTest,
                         ::testing::Values(EvictionOrder::kRadixLru,
                                           EvictionOrder::kVllmFreeQueue));

}  // namespace
}  // namespace kvroute::models
