// The delayed, lossy view of replica caches that routers indexing KV events
// read (sim/runner/stale_cache_view.h), by hand on one cache.
#include "sim/runner/stale_cache_view.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/kv_cache.h"
#include "sim/core/random_stream.h"

namespace kvroute::sim {
namespace {

constexpr Time kDelay = 100'000'000;  // 100 ms
constexpr Time kT = 1'000'000'000;    // 1 s: when the cache changes

// The real caches, for the view's error counters.
class CachesOracle : public RangedCacheOracle {
 public:
  explicit CachesOracle(std::vector<const models::KvCache*> caches) : caches_(caches) {}
  uint32_t CachedPrefixBlocks(uint32_t r, std::span<const uint64_t> chain) const override {
    return caches_[r]->MatchPrefix(chain);
  }
  void CachedPrefixBlocksOf(uint32_t offset, std::span<const uint64_t> chain,
                            std::span<uint32_t> out) const override {
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = CachedPrefixBlocks(offset + i, chain);
  }

 private:
  std::vector<const models::KvCache*> caches_;
};

// One replica whose 4-block cache publishes to a view with delay kDelay.
class StaleViewTest : public ::testing::Test {
 protected:
  explicit StaleViewTest(double loss = 0, uint64_t seed = 1)
      : view_(1, kDelay, loss, seed, oracle_, [this] { return now_; }) {
    cache_.set_event_listener(view_.publisher(0));
  }

  // Computes and caches `chain` as one request, then lets it finish.
  void Serve(const std::vector<uint64_t>& chain) {
    models::KvHandle handle;
    ASSERT_TRUE(cache_.Admit(chain, static_cast<uint32_t>(chain.size()), UINT32_MAX, &handle));
    cache_.Register(chain, static_cast<uint32_t>(chain.size()), &handle);
    cache_.Release(&handle);
  }
  uint32_t Believed(const std::vector<uint64_t>& chain) {
    return view_.CachedPrefixBlocks(0, chain);
  }

  const std::vector<uint64_t> abc_{11, 12, 13};
  const std::vector<uint64_t> wxyz_{21, 22, 23, 24};  // fills the cache: evicts abc
  Time now_ = 0;
  models::KvCache cache_{4};
  CachesOracle oracle_{{&cache_}};
  StaleCacheView view_;
};

TEST_F(StaleViewTest, StoredBlocksAppearExactlyOneDelayLater) {
  now_ = kT;
  Serve(abc_);
  EXPECT_EQ(cache_.MatchPrefix(abc_), 3u);
  EXPECT_EQ(Believed(abc_), 0u);
  now_ = kT + kDelay - 1;
  EXPECT_EQ(Believed(abc_), 0u);
  now_ = kT + kDelay;
  EXPECT_EQ(Believed(abc_), 3u);
  EXPECT_EQ(view_.counters().lookups, 3u);
  EXPECT_EQ(view_.counters().underestimated, 2u);
  EXPECT_EQ(view_.counters().overestimated, 0u);
  EXPECT_EQ(view_.counters().error_blocks, 6u);
}

TEST_F(StaleViewTest, EvictedBlocksDisappearExactlyOneDelayLater) {
  now_ = kT;
  Serve(abc_);
  now_ = 2 * kT;
  Serve(wxyz_);  // evicts abc at 2 s
  EXPECT_EQ(cache_.MatchPrefix(abc_), 0u);
  now_ = 2 * kT + kDelay - 1;
  EXPECT_EQ(Believed(abc_), 3u);  // the router over-estimates
  EXPECT_EQ(Believed(wxyz_), 0u);
  EXPECT_EQ(view_.counters().overestimated, 1u);
  EXPECT_EQ(view_.counters().error_blocks, 3u + 4u);
  now_ = 2 * kT + kDelay;
  EXPECT_EQ(Believed(abc_), 0u);
  EXPECT_EQ(Believed(wxyz_), 4u);
}

TEST_F(StaleViewTest, ClearedCacheEmptiesTheViewOneDelayLater) {
  now_ = kT;
  Serve(abc_);
  now_ = 2 * kT;
  cache_.Clear();
  now_ = 2 * kT + kDelay - 1;
  EXPECT_EQ(Believed(abc_), 3u);
  now_ = 2 * kT + kDelay;
  EXPECT_EQ(Believed(abc_), 0u);
}

// The first seed whose "kv_events.loss" stream for replica 0 loses (draw <
// 0.5) exactly the events marked true in `lost`, in order.
uint64_t SeedLosing(const std::vector<bool>& lost) {
  for (uint64_t seed = 1;; ++seed) {
    RandomStream stream(seed, "kv_events.loss", 0);
    bool match = true;
    for (bool l : lost) match = match && ((stream.Uniform() < 0.5) == l);
    if (match) return seed;
  }
}

class LossyViewTest : public StaleViewTest {
 protected:
  explicit LossyViewTest(const std::vector<bool>& lost) : StaleViewTest(0.5, SeedLosing(lost)) {}
};

// Events: abc stored (kept), abc's eviction (lost), wxyz stored (kept).
class LostRemovalTest : public LossyViewTest {
 protected:
  LostRemovalTest() : LossyViewTest({false, true, false}) {}
};

TEST_F(LostRemovalTest, KeepsTheEvictedBlocksInTheView) {
  now_ = kT;
  Serve(abc_);
  now_ = 2 * kT;
  Serve(wxyz_);
  now_ = 10 * kT;
  EXPECT_EQ(view_.published(), 3u);
  EXPECT_EQ(view_.lost(), 1u);
  EXPECT_EQ(cache_.MatchPrefix(abc_), 0u);
  EXPECT_EQ(Believed(abc_), 3u);  // for ever, until a removal arrives
  EXPECT_EQ(Believed(wxyz_), 4u);
  EXPECT_EQ(view_.counters().overestimated, 1u);
}

// Events: a stored (lost), b after a stored (kept, but its parent is unknown),
// a stored again (kept).
class LostParentTest : public LossyViewTest {
 protected:
  LostParentTest() : LossyViewTest({true, false, false}) {}
};

TEST_F(LostParentTest, AStoreUnderAnUnknownParentIsDropped) {
  const std::vector<uint64_t> ab{31, 32};
  models::KvEventListener* publish = view_.publisher(0);
  now_ = kT;
  publish->OnBlocksStored(ab, 0, 1);
  publish->OnBlocksStored(ab, 1, 2);
  publish->OnBlocksStored(ab, 0, 1);
  now_ = kT + kDelay;
  EXPECT_EQ(Believed(ab), 1u);  // not 2: b was dropped as Dynamo's indexer drops it
}

TEST(StaleCacheViewLossTest, LosingEveryEventShowsNothing) {
  models::KvCache cache(4);
  CachesOracle oracle({&cache});
  StaleCacheView view(1, 0, 1.0, 7, oracle, [] { return Time{0}; });
  cache.set_event_listener(view.publisher(0));
  const std::vector<uint64_t> chain{5, 6};
  models::KvHandle handle;
  ASSERT_TRUE(cache.Admit(chain, 2, UINT32_MAX, &handle));
  cache.Register(chain, 2, &handle);
  EXPECT_EQ(view.CachedPrefixBlocks(0, chain), 0u);
  EXPECT_EQ(view.lost(), 1u);
}

// The believed contents: a prefix counts while every block of it is held,
// for replicas beyond the first 64 too; forgetting one replica keeps others.
TEST(BelievedCachesTest, DepthsStopAtTheFirstBlockNotHeld) {
  BelievedCaches caches(70);
  const std::vector<uint64_t> chain{1, 2, 3, 4};
  for (uint64_t b : {1, 2, 4}) caches.Add(66, b);  // a hole at 3
  for (uint64_t b : {1, 2, 3, 4}) caches.Add(2, b);
  std::vector<uint32_t> out(70);
  caches.Depths(0, chain, out);
  EXPECT_EQ(out[66], 2u);
  EXPECT_EQ(out[2], 4u);
  EXPECT_EQ(out[65], 0u);
  std::vector<uint32_t> some(3);
  caches.Depths(65, chain, some);  // replicas 65, 66, 67
  EXPECT_EQ(some, (std::vector<uint32_t>{0, 2, 0}));
  caches.DropAll(2);
  caches.Depths(0, chain, out);
  EXPECT_EQ(out[2], 0u);
  EXPECT_EQ(out[66], 2u);
  EXPECT_EQ(caches.entries(), 3u);  // block 3 was held by replica 2 only
  caches.Drop(66, 1);
  EXPECT_FALSE(caches.Holds(66, 1));
  EXPECT_TRUE(caches.Holds(66, 2));
}

}  // namespace
}  // namespace kvroute::sim
