// The host-memory KV tier (models/kv_tier.h): transfer time worked by hand,
// its LRU, and the HBM cache with a DRAM tier below it against an independent
// two-level LRU count on random traffic, with conservation checked after
// every step.
#include "models/kv_tier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <vector>

#include "models/kv_cache.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

KvTierConfig Tier(uint32_t blocks, OffloadRule rule = OffloadRule::kOnEvict) {
  KvTierConfig c;
  c.capacity_blocks = blocks;
  c.bytes_per_block = 1 << 20;
  c.bandwidth_bytes_per_s = 1e9;
  c.latency = 0;
  c.offload = rule;
  return c;
}

TEST(KvTierTest, LoadTimeIsBlocksTimesBytesOverBandwidthPlusLatency) {
  // Llama-3.1-8B in bf16: 32 layers x 8 KV heads x 128 dims x (K, V) x 2 bytes
  // = 131,072 bytes per token; a 16-token block is 2,097,152 bytes. Ten blocks
  // over 50 GB/s take 20,971,520 / 50e9 s = 419,430.4 ns, plus 10 us.
  KvTierConfig c;
  c.capacity_blocks = 1;
  c.bytes_per_block = 2'097'152;
  c.bandwidth_bytes_per_s = 50e9;
  c.latency = 10'000;
  EXPECT_EQ(c.LoadTime(10), 419'430 + 10'000);
  EXPECT_EQ(c.LoadTime(0), 0);
  EXPECT_EQ(c.LoadTime(1), 41'943 + 10'000);  // 41,943.04 ns rounds down
}

TEST(KvTierTest, DropsTheLeastRecentlyUsedAndRefreshesOnStore) {
  HostKvTier tier(Tier(3));
  for (uint64_t h : {1, 2, 3}) tier.Store(h);
  tier.Store(1);  // held: refreshed, not copied again
  tier.Store(4);  // full: drops 2
  EXPECT_EQ(tier.LruOrder(), (std::vector<uint64_t>{3, 1, 4}));
  EXPECT_EQ(tier.counters().stored_blocks, 4u);
  EXPECT_EQ(tier.counters().dropped_blocks, 1u);
  EXPECT_EQ(tier.CheckInvariants(), "");
}

TEST(KvTierTest, BlocksBeingLoadedAreNeverDroppedForAStore) {
  HostKvTier tier(Tier(2));
  tier.Store(10);
  tier.Store(11);
  const std::vector<uint64_t> prompt{10, 11};
  const BlockChain chain(prompt);
  ASSERT_EQ(tier.Match(chain, 0, 2), 2u);
  tier.BeginLoad(chain, 0, 2);
  tier.Store(12);  // nothing may go: the offload is refused
  EXPECT_EQ(tier.counters().skipped_stores, 1u);
  EXPECT_EQ(tier.EndLoad(chain, 0, 2, true), Tier(2).LoadTime(2));
  EXPECT_EQ(tier.LruOrder(), (std::vector<uint64_t>{11, 10}));  // the chain's head last
  tier.Store(12);                                               // protection ended
  EXPECT_EQ(tier.LruOrder(), (std::vector<uint64_t>{10, 12}));
  EXPECT_EQ(tier.CheckInvariants(), "");
}

TEST(KvTierTest, MatchStopsAtTheFirstBlockNotHeld) {
  HostKvTier tier(Tier(4));
  tier.Store(2);
  tier.Store(3);
  const std::vector<uint64_t> prompt{1, 2, 3, 4};
  EXPECT_EQ(tier.Match(BlockChain(prompt), 0, 4), 0u);
  EXPECT_EQ(tier.Match(BlockChain(prompt), 1, 4), 2u);
  EXPECT_EQ(tier.Match(BlockChain(prompt), 1, 2), 1u);  // the limit
}

// Two plain LRU lists of block hashes, front = least recently used, and the
// rules of kv_tier.h written out block by block.
class TwoLevelLru {
 public:
  TwoLevelLru(uint32_t hbm, uint32_t dram, OffloadRule rule)
      : hbm_cap_(hbm), dram_cap_(dram), rule_(rule) {}

  // One request for the whole of `chain`, admitted, computed and released.
  void Access(const std::vector<uint64_t>& chain) {
    const uint32_t n = static_cast<uint32_t>(chain.size());
    uint32_t hit = 0;
    while (hit < n && Has(hbm_, chain[hit])) ++hit;
    for (uint32_t j = 0; j < hit; ++j) hbm_.remove(chain[j]);  // pinned
    uint32_t loaded = 0;
    while (hit + loaded < n && Has(dram_, chain[hit + loaded])) ++loaded;
    std::vector<uint64_t> loading(chain.begin() + hit, chain.begin() + hit + loaded);
    const uint32_t needed = n - hit;
    const uint32_t free = hbm_cap_ - static_cast<uint32_t>(hbm_.size()) - hit;
    for (uint32_t k = needed > free ? needed - free : 0; k > 0; --k) {
      const uint64_t victim = hbm_.front();
      hbm_.pop_front();
      if (rule_ == OffloadRule::kOnEvict) Store(victim, loading);
    }
    for (uint32_t j = hit + loaded; j > hit; --j) Touch(&dram_, chain[j - 1]);
    if (rule_ == OffloadRule::kWriteThrough) {
      for (uint32_t j = n; j > hit; --j) Store(chain[j - 1], {});
    }
    for (uint32_t j = n; j > 0; --j) hbm_.push_back(chain[j - 1]);  // released tail first
    hbm_hits += hit;
    dram_hits += loaded;
  }

  std::vector<uint64_t> hbm_order() const { return {hbm_.begin(), hbm_.end()}; }
  std::vector<uint64_t> dram_order() const { return {dram_.begin(), dram_.end()}; }
  uint64_t hbm_hits = 0, dram_hits = 0, stored = 0, dropped = 0, skipped = 0;

 private:
  static bool Has(const std::list<uint64_t>& l, uint64_t h) {
    return std::find(l.begin(), l.end(), h) != l.end();
  }
  static void Touch(std::list<uint64_t>* l, uint64_t h) {
    l->remove(h);
    l->push_back(h);
  }
  void Store(uint64_t h, const std::vector<uint64_t>& loading) {
    if (Has(dram_, h)) return Touch(&dram_, h);
    if (dram_.size() == dram_cap_) {
      auto victim = std::find_if(dram_.begin(), dram_.end(), [&](uint64_t v) {
        return std::find(loading.begin(), loading.end(), v) == loading.end();
      });
      if (victim == dram_.end()) {
        ++skipped;
        return;
      }
      dram_.erase(victim);
      ++dropped;
    }
    dram_.push_back(h);
    ++stored;
  }

  uint32_t hbm_cap_, dram_cap_;
  OffloadRule rule_;
  std::list<uint64_t> hbm_, dram_;
};

// The HBM cache with a DRAM tier below it, driven the way models/replica.cc
// drives them at admission.
class Tiered {
 public:
  Tiered(uint32_t hbm, uint32_t dram, OffloadRule rule) : kv_(hbm), tier_(Tier(dram, rule)) {
    if (rule == OffloadRule::kOnEvict) kv_.OffloadEvictionsTo(&tier_);
  }

  void Access(const std::vector<uint64_t>& blocks) {
    const BlockChain chain(blocks);
    const uint32_t n = chain.size();
    const uint32_t hit = kv_.MatchPrefix(chain);
    const uint32_t loaded = tier_.Match(chain, hit, n);
    tier_.BeginLoad(chain, hit, loaded);
    KvHandle h;
    const bool admitted = kv_.Admit(chain, n, n, &h);
    tier_.EndLoad(chain, hit, loaded, admitted);
    ASSERT_TRUE(admitted);
    kv_.Register(chain, n, &h);
    if (tier_.config().offload == OffloadRule::kWriteThrough) {
      for (uint32_t j = n; j > hit; --j) tier_.Store(chain[j - 1]);
    }
    kv_.Release(&h);
    hbm_hits += hit;
    dram_hits += loaded;
  }

  const KvCache& kv() const { return kv_; }
  const HostKvTier& tier() const { return tier_; }
  uint64_t hbm_hits = 0, dram_hits = 0;

 private:
  KvCache kv_;
  HostKvTier tier_;
};

class TwoLevelTest : public ::testing::TestWithParam<OffloadRule> {};

TEST_P(TwoLevelTest, MatchesAnIndependentTwoLevelLruOnRandomTraffic) {
  constexpr uint32_t kHbm = 24, kDram = 40, kDocs = 40;
  // Documents of 1..6 blocks sharing nothing, drawn with a skew so that some
  // return soon (HBM hits), some late (DRAM hits) and some too late (misses).
  sim::RandomStream rng(7, "test.kv_tier");
  std::vector<std::vector<uint64_t>> docs(kDocs);
  for (uint32_t d = 0; d < kDocs; ++d) {
    const uint32_t length = 1 + static_cast<uint32_t>(rng.UniformInt(6));
    for (uint32_t j = 0; j < length; ++j) docs[d].push_back(uint64_t{d} * 1000 + j + 1);
  }
  Tiered sut(kHbm, kDram, GetParam());
  TwoLevelLru oracle(kHbm, kDram, GetParam());
  for (int step = 0; step < 4000; ++step) {
    const double u = rng.Uniform();
    const auto& doc = docs[static_cast<size_t>(u * u * kDocs)];
    sut.Access(doc);
    oracle.Access(doc);
    ASSERT_EQ(sut.kv().CheckInvariants(), "") << "step " << step;
    ASSERT_EQ(sut.tier().CheckInvariants(), "") << "step " << step;
    // Conservation: HBM holds at most its capacity and nothing is pinned
    // between requests; every copy made to DRAM is held or was dropped.
    ASSERT_LE(sut.kv().used_blocks(), kHbm);
    ASSERT_EQ(sut.kv().used_blocks(), sut.kv().evictable_blocks());
    ASSERT_LE(sut.tier().held_blocks(), kDram);
    ASSERT_EQ(sut.tier().counters().stored_blocks,
              sut.tier().held_blocks() + sut.tier().counters().dropped_blocks);
    ASSERT_EQ(sut.kv().EvictionList(), oracle.hbm_order()) << "step " << step;
    ASSERT_EQ(sut.tier().LruOrder(), oracle.dram_order()) << "step " << step;
  }
  EXPECT_EQ(sut.hbm_hits, oracle.hbm_hits);
  EXPECT_EQ(sut.dram_hits, oracle.dram_hits);
  EXPECT_EQ(sut.tier().counters().loaded_blocks, oracle.dram_hits);
  EXPECT_EQ(sut.tier().counters().stored_blocks, oracle.stored);
  EXPECT_EQ(sut.tier().counters().dropped_blocks, oracle.dropped);
  EXPECT_EQ(sut.tier().counters().skipped_stores, oracle.skipped);
  // The traffic exercised every path.
  EXPECT_GT(oracle.hbm_hits, 0u);
  EXPECT_GT(oracle.dram_hits, 0u);
  EXPECT_GT(oracle.dropped, 0u);
}

INSTANTIATE_TEST_SUITE_P(Rules, TwoLevelTest,
                         ::testing::Values(OffloadRule::kOnEvict, OffloadRule::kWriteThrough));

TEST(KvTierTest, ClearCountsWhatItForgetsAsDropped) {
  HostKvTier tier(Tier(4));
  for (uint64_t h : {1, 2, 3}) tier.Store(h);
  tier.Clear();
  EXPECT_EQ(tier.held_blocks(), 0u);
  EXPECT_EQ(tier.counters().dropped_blocks, 3u);
  EXPECT_EQ(tier.CheckInvariants(), "");
}

}  // namespace
}  // namespace kvroute::models
