// The host-memory and SSD KV tiers (models/kv_tier.h): transfer time worked
// by hand, the LRU, and the HBM cache with a DRAM tier (and an SSD tier) below
// it against an independent LRU count per tier on random traffic, with
// conservation checked after every step.
#include "models/kv_tier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <memory>
#include <set>
#include <tuple>
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

// Plain LRU lists of block hashes, front = least recently used, one per tier
// (no SSD when its capacity is 0), and the rules of kv_tier.h written out
// block by block.
class LevelLru {
 public:
  LevelLru(uint32_t hbm, uint32_t dram, uint32_t ssd, OffloadRule rule)
      : hbm_cap_(hbm), dram_cap_(dram), ssd_cap_(ssd), rule_(rule) {}

  // One request for the whole of `chain`, admitted, computed and released.
  void Access(const std::vector<uint64_t>& chain) {
    const uint32_t n = static_cast<uint32_t>(chain.size());
    uint32_t hit = 0;
    while (hit < n && Has(hbm_, chain[hit])) ++hit;
    for (uint32_t j = 0; j < hit; ++j) hbm_.remove(chain[j]);  // pinned
    uint32_t loaded = 0;
    while (hit + loaded < n && Has(dram_, chain[hit + loaded])) ++loaded;
    const uint32_t from = hit + loaded;
    uint32_t read = 0;
    while (ssd_cap_ > 0 && from + read < n && Has(ssd_, chain[from + read])) ++read;
    dram_loading_.assign(chain.begin() + hit, chain.begin() + from);
    ssd_loading_.assign(chain.begin() + from, chain.begin() + from + read);
    const uint32_t needed = n - hit;
    const uint32_t free = hbm_cap_ - static_cast<uint32_t>(hbm_.size()) - hit;
    for (uint32_t k = needed > free ? needed - free : 0; k > 0; --k) {
      const uint64_t victim = hbm_.front();
      hbm_.pop_front();
      if (rule_ == OffloadRule::kOnEvict) StoreDram(victim);
    }
    // Read from SSD into DRAM, deepest first, not written back down.
    for (uint32_t j = from + read; j > from; --j) {
      if (StoreDram(chain[j - 1], /*promote=*/true)) ++promoted;
    }
    for (uint32_t j = from + read; j > from; --j) Touch(&ssd_, chain[j - 1]);
    for (uint32_t j = from; j > hit; --j) Touch(&dram_, chain[j - 1]);
    dram_loading_.clear();
    ssd_loading_.clear();
    if (rule_ == OffloadRule::kWriteThrough) {
      for (uint32_t j = n; j > hit; --j) StoreDram(chain[j - 1]);
    }
    for (uint32_t j = n; j > 0; --j) hbm_.push_back(chain[j - 1]);  // released tail first
    hbm_hits += hit;
    dram_hits += loaded;
    ssd_hits += read;
  }

  std::vector<uint64_t> hbm_order() const { return {hbm_.begin(), hbm_.end()}; }
  std::vector<uint64_t> dram_order() const { return {dram_.begin(), dram_.end()}; }
  std::vector<uint64_t> ssd_order() const { return {ssd_.begin(), ssd_.end()}; }
  struct Counts {
    uint64_t stored = 0, dropped = 0, skipped = 0;
  };
  Counts dram, ssd;
  uint64_t hbm_hits = 0, dram_hits = 0, ssd_hits = 0, promoted = 0;

 private:
  static bool Has(const std::list<uint64_t>& l, uint64_t h) {
    return std::find(l.begin(), l.end(), h) != l.end();
  }
  static void Touch(std::list<uint64_t>* l, uint64_t h) {
    l->remove(h);
    l->push_back(h);
  }
  // Copies `h` into `tier` (or refreshes it), dropping its least recently used
  // block not in `loading` when full; true if a copy was made. `*dropped_to`
  // receives what was dropped.
  bool Insert(std::list<uint64_t>* tier, uint32_t cap, uint64_t h,
              const std::vector<uint64_t>& loading, Counts* counts,
              uint64_t* dropped_to = nullptr) {
    if (Has(*tier, h)) {
      Touch(tier, h);
      return false;
    }
    if (tier->size() == cap) {
      auto victim = std::find_if(tier->begin(), tier->end(), [&](uint64_t v) {
        return std::find(loading.begin(), loading.end(), v) == loading.end();
      });
      if (victim == tier->end()) {
        ++counts->skipped;
        return false;
      }
      if (dropped_to != nullptr) *dropped_to = *victim;
      tier->erase(victim);
      ++counts->dropped;
    }
    tier->push_back(h);
    ++counts->stored;
    return true;
  }
  // A store into DRAM and what it spills to SSD; a block promoted from SSD
  // is not written back down.
  bool StoreDram(uint64_t h, bool promote = false) {
    uint64_t victim = 0;
    const uint64_t dropped_before = dram.dropped;
    const bool copied = Insert(&dram_, dram_cap_, h, dram_loading_, &dram, &victim);
    if (ssd_cap_ == 0) return copied;
    if (rule_ == OffloadRule::kOnEvict && dram.dropped > dropped_before) {
      Insert(&ssd_, ssd_cap_, victim, ssd_loading_, &ssd);
    }
    if (rule_ == OffloadRule::kWriteThrough && copied && !promote) {
      Insert(&ssd_, ssd_cap_, h, ssd_loading_, &ssd);
    }
    return copied;
  }

  uint32_t hbm_cap_, dram_cap_, ssd_cap_;
  OffloadRule rule_;
  std::list<uint64_t> hbm_, dram_, ssd_;
  std::vector<uint64_t> dram_loading_, ssd_loading_;
};

// The HBM cache with a DRAM tier (and an SSD tier when `ssd` > 0) below it,
// driven the way models/replica.cc drives them at admission.
class Tiered {
 public:
  Tiered(uint32_t hbm, uint32_t dram, uint32_t ssd, OffloadRule rule)
      : kv_(hbm), tier_(Tier(dram, rule)) {
    if (ssd > 0) {
      ssd_ = std::make_unique<HostKvTier>(Tier(ssd, rule));
      tier_.SpillTo(ssd_.get());
    }
    if (rule == OffloadRule::kOnEvict) kv_.OffloadEvictionsTo(&tier_);
  }

  void Access(const std::vector<uint64_t>& blocks) {
    const BlockChain chain(blocks);
    const uint32_t n = chain.size();
    const uint32_t hit = kv_.MatchPrefix(chain);
    const uint32_t loaded = tier_.Match(chain, hit, n);
    const uint32_t from = hit + loaded;
    const uint32_t read = ssd_ ? ssd_->Match(chain, from, n) : 0;
    tier_.BeginLoad(chain, hit, loaded);
    if (ssd_) ssd_->BeginLoad(chain, from, read);
    KvHandle h;
    const bool admitted = kv_.Admit(chain, n, n, &h);
    ASSERT_TRUE(admitted);
    if (ssd_) {
      tier_.Promote(chain, from, read);
      ssd_->EndLoad(chain, from, read, admitted);
    }
    tier_.EndLoad(chain, hit, loaded, admitted, read);
    kv_.Register(chain, n, &h);
    if (tier_.config().offload == OffloadRule::kWriteThrough) {
      for (uint32_t j = n; j > hit; --j) tier_.Store(chain[j - 1]);
    }
    kv_.Release(&h);
    hbm_hits += hit;
    dram_hits += loaded;
    ssd_hits += read;
  }

  const KvCache& kv() const { return kv_; }
  const HostKvTier& tier() const { return tier_; }
  const HostKvTier* ssd() const { return ssd_.get(); }
  uint64_t hbm_hits = 0, dram_hits = 0, ssd_hits = 0;

 private:
  KvCache kv_;
  std::unique_ptr<HostKvTier> ssd_;
  HostKvTier tier_;
};

// Documents of 1..6 blocks sharing nothing.
std::vector<std::vector<uint64_t>> Documents(sim::RandomStream* rng, uint32_t count) {
  std::vector<std::vector<uint64_t>> docs(count);
  for (uint32_t d = 0; d < count; ++d) {
    const uint32_t length = 1 + static_cast<uint32_t>(rng->UniformInt(6));
    for (uint32_t j = 0; j < length; ++j) docs[d].push_back(uint64_t{d} * 1000 + j + 1);
  }
  return docs;
}

void ExpectCounts(const HostKvTier& tier, const LevelLru::Counts& oracle) {
  EXPECT_EQ(tier.counters().stored_blocks, oracle.stored);
  EXPECT_EQ(tier.counters().dropped_blocks, oracle.dropped);
  EXPECT_EQ(tier.counters().skipped_stores, oracle.skipped);
}

// (offload rule, SSD blocks; 0: HBM and DRAM only).
class LevelTest : public ::testing::TestWithParam<std::tuple<OffloadRule, uint32_t>> {};

TEST_P(LevelTest, MatchesAnIndependentLruPerTierOnRandomTraffic) {
  const auto [rule, kSsd] = GetParam();
  constexpr uint32_t kHbm = 24, kDram = 40, kDocs = 40;
  // Drawn with a skew so that some documents return soon (HBM hits), some
  // late (DRAM, then SSD hits) and some too late (misses): the documents
  // hold about 140 blocks, more than the three tiers together.
  sim::RandomStream rng(7, "test.kv_tier");
  const auto docs = Documents(&rng, kDocs);
  Tiered sut(kHbm, kDram, kSsd, rule);
  LevelLru oracle(kHbm, kDram, kSsd, rule);
  for (int step = 0; step < 4000; ++step) {
    const double u = rng.Uniform();
    const auto& doc = docs[static_cast<size_t>(u * u * kDocs)];
    sut.Access(doc);
    oracle.Access(doc);
    ASSERT_EQ(sut.kv().CheckInvariants(), "") << "step " << step;
    ASSERT_EQ(sut.tier().CheckInvariants(), "") << "step " << step;
    // Conservation: HBM holds at most its capacity and nothing is pinned
    // between requests; every copy made to a tier is held or was dropped.
    ASSERT_LE(sut.kv().used_blocks(), kHbm);
    ASSERT_EQ(sut.kv().used_blocks(), sut.kv().evictable_blocks());
    ASSERT_LE(sut.tier().held_blocks(), kDram);
    ASSERT_EQ(sut.tier().counters().stored_blocks,
              sut.tier().held_blocks() + sut.tier().counters().dropped_blocks);
    ASSERT_EQ(sut.kv().EvictionList(), oracle.hbm_order()) << "step " << step;
    ASSERT_EQ(sut.tier().LruOrder(), oracle.dram_order()) << "step " << step;
    if (kSsd > 0) {
      ASSERT_EQ(sut.ssd()->CheckInvariants(), "") << "step " << step;
      ASSERT_LE(sut.ssd()->held_blocks(), kSsd);
      ASSERT_EQ(sut.ssd()->LruOrder(), oracle.ssd_order()) << "step " << step;
    }
  }
  EXPECT_EQ(sut.hbm_hits, oracle.hbm_hits);
  EXPECT_EQ(sut.dram_hits, oracle.dram_hits);
  EXPECT_EQ(sut.ssd_hits, oracle.ssd_hits);
  // DRAM copies up what it held and what SSD sent through it.
  EXPECT_EQ(sut.tier().counters().loaded_blocks, oracle.dram_hits + oracle.ssd_hits);
  EXPECT_EQ(sut.tier().counters().promoted_blocks, oracle.promoted);
  ExpectCounts(sut.tier(), oracle.dram);
  // The traffic exercised every path.
  EXPECT_GT(oracle.hbm_hits, 0u);
  EXPECT_GT(oracle.dram_hits, 0u);
  EXPECT_GT(oracle.dram.dropped, 0u);
  if (kSsd == 0) return;
  ExpectCounts(*sut.ssd(), oracle.ssd);
  EXPECT_EQ(sut.ssd()->counters().loaded_blocks, oracle.ssd_hits);
  EXPECT_GT(oracle.ssd_hits, 0u);
  EXPECT_GT(oracle.ssd.dropped, 0u);
  EXPECT_GT(oracle.promoted, 0u);
}

INSTANTIATE_TEST_SUITE_P(RulesAndTiers, LevelTest,
                         ::testing::Combine(::testing::Values(OffloadRule::kOnEvict,
                                                              OffloadRule::kWriteThrough),
                                            ::testing::Values(0u, 60u)));

// With an SSD tier that can hold every document, on_evict loses nothing: after
// each request every block ever computed is in HBM, DRAM or SSD, and what DRAM
// drops is exactly what SSD receives.
TEST(KvTierTest, AnSsdThatHoldsEverythingLosesNoBlock) {
  sim::RandomStream rng(11, "test.kv_tier");
  const auto docs = Documents(&rng, 40);
  Tiered sut(8, 12, 40 * 6, OffloadRule::kOnEvict);
  std::set<uint64_t> seen;
  for (int step = 0; step < 2000; ++step) {
    const auto& doc = docs[rng.UniformInt(docs.size())];
    sut.Access(doc);
    seen.insert(doc.begin(), doc.end());
    std::set<uint64_t> held;
    for (uint64_t h : sut.kv().EvictionList()) held.insert(h);
    for (uint64_t h : sut.tier().LruOrder()) held.insert(h);
    for (uint64_t h : sut.ssd()->LruOrder()) held.insert(h);
    ASSERT_EQ(held, seen) << "step " << step;
  }
  EXPECT_EQ(sut.ssd()->counters().dropped_blocks, 0u);
  EXPECT_EQ(sut.ssd()->counters().skipped_stores, 0u);
  EXPECT_GT(sut.ssd_hits, 0u);
  // Every block DRAM dropped was written to SSD, once or as a refresh.
  EXPECT_LE(sut.ssd()->counters().stored_blocks, sut.tier().counters().dropped_blocks);
}

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
