// KvCache::MatchPrefixMany against MatchPrefix of each cache: several small
// caches under random traffic (shared system prompts, documents, unique tails,
// registered in pieces, released, evicted, one cache cleared now and then),
// asked together about chains seen before and new ones after every step,
// without and with a filter of the blocks that start a node in any of them.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/kv_cache.h"
#include "models/prompt_blocks.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kLockstepBlockTokens = 4;
constexpr uint32_t kCaches = 5;

struct LockstepSequence {
  std::vector<uint64_t> prompt, output;
};

LockstepSequence NextSequence(sim::RandomStream& rng, uint64_t* salt) {
  std::vector<PromptSegment> segments;
  segments.push_back(
      {sim::Combine(1, rng.UniformInt(3)), 8 + static_cast<uint32_t>(rng.UniformInt(40))});
  if (rng.Uniform() < 0.4) {
    segments.push_back(
        {sim::Combine(2, rng.UniformInt(5)), 4 + static_cast<uint32_t>(rng.UniformInt(20))});
  }
  if (rng.Uniform() < 0.7)
    segments.push_back({sim::Combine(3, (*salt)++), 1 + static_cast<uint32_t>(rng.UniformInt(24))});
  LockstepSequence s;
  HashSequenceBlocks(segments, {sim::Combine(4, (*salt)++), 8}, kLockstepBlockTokens, &s.prompt,
                     &s.output);
  return s;
}

struct LockstepRunning {
  LockstepSequence seq;
  KvHandle handle;
  uint32_t cache = 0;
};

TEST(KvCacheManyTest, LockstepWalksMatchEachCacheAlone) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    sim::RandomStream rng(seed, "test.kv_cache_many");
    std::vector<std::unique_ptr<KvCache>> owned;
    std::vector<const KvCache*> caches;
    for (uint32_t c = 0; c < kCaches; ++c) {
      owned.push_back(std::make_unique<KvCache>(
          60 + 40 * c, c % 2 == 0 ? EvictionOrder::kRadixLru : EvictionOrder::kVllmFreeQueue));
      caches.push_back(owned.back().get());
    }
    std::vector<LockstepRunning> running;
    std::vector<LockstepSequence> seen;
    uint64_t salt = 0;
    std::vector<uint32_t> together(kCaches), filtered(kCaches), scratch;
    // Counts every cache's nodes from the start; with it, the walks skip
    // blocks no cache has a node starting with.
    auto filter = std::make_unique<FirstBlockFilter>();
    for (auto& cache : owned) cache->AttachFirstBlockFilter(filter.get());
    uint64_t hits = 0, misses = 0;
    for (int step = 0; step < 6000; ++step) {
      const double u = rng.Uniform();
      if (running.size() < 12 && u < 0.4) {
        LockstepRunning r{
            NextSequence(rng, &salt), {}, static_cast<uint32_t>(rng.UniformInt(kCaches))};
        KvCache& cache = *owned[r.cache];
        const BlockChain chain(r.seq.prompt, r.seq.output);
        const uint32_t total = chain.size() - static_cast<uint32_t>(rng.UniformInt(4));
        if (cache.Admit(chain, total, chain.size(), &r.handle)) {
          cache.Register(
              chain,
              r.handle.registered_blocks() +
                  static_cast<uint32_t>(rng.UniformInt(total - r.handle.registered_blocks() + 1)),
              &r.handle);
          seen.push_back(r.seq);
          running.push_back(std::move(r));
        }
      } else if (!running.empty() && u < 0.9) {
        const size_t i = rng.UniformInt(running.size());
        LockstepRunning& r = running[i];
        KvCache& cache = *owned[r.cache];
        cache.Register(BlockChain(r.seq.prompt, r.seq.output), r.handle.allocated_blocks(),
                       &r.handle);
        cache.Release(&r.handle);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (u > 0.995) {
        const uint32_t c = static_cast<uint32_t>(rng.UniformInt(kCaches));
        bool busy = false;
        for (const LockstepRunning& r : running) busy = busy || r.cache == c;
        if (!busy) owned[c]->Clear();
      }
      // A chain seen before (maybe cached) or a new one (maybe partly).
      const LockstepSequence probe = !seen.empty() && rng.Uniform() < 0.7
                                         ? seen[rng.UniformInt(seen.size())]
                                         : NextSequence(rng, &salt);
      const BlockChain chain(probe.prompt, probe.output);
      KvCache::MatchPrefixMany(caches, chain, together, &scratch);
      KvCache::MatchPrefixMany(caches, chain, filtered, &scratch, filter.get());
      for (uint32_t c = 0; c < kCaches; ++c) {
        const uint32_t alone = owned[c]->MatchPrefix(chain);
        ASSERT_EQ(together[c], alone) << "seed " << seed << " step " << step << " cache " << c;
        ASSERT_EQ(filtered[c], alone) << "seed " << seed << " step " << step << " cache " << c;
        (alone > 0 ? hits : misses) += 1;
      }
    }
    for (LockstepRunning& r : running) owned[r.cache]->Release(&r.handle);
    EXPECT_GT(hits, 1000u);
    EXPECT_GT(misses, 300u);
  }
}

}  // namespace
}  // namespace kvroute::models
