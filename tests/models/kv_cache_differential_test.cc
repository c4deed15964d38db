// The run-based prefix cache against the per-block original it replaced
// (tests/oracle/block_kv_cache.h): random traffic of shared system prompts,
// documents, multi-turn sessions with generated tokens, forks of earlier
// chains and duplicates, admitted in chunks, grown, registered a chunk or a
// decode block at a time, preempted and completed, in pools small enough to
// evict all the time. Every answer both give is compared: prefix matches,
// admissions and their hits, growth, pool counts, evictions, and the whole
// eviction order after every step that evicted.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/kv_cache.h"
#include "models/prompt_blocks.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"
#include "tests/oracle/block_kv_cache.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kBlock = 4;  // tokens per block: short segments still span blocks

struct Sequence {
  std::vector<uint64_t> prompt, output;
  BlockChain chain() const { return BlockChain(prompt, output); }
};

// Prompts of a few segments, as the workloads make them: one of a few system
// prompts, maybe documents, then either new tokens or the history of an
// earlier sequence (a session's next turn, whose prompt repeats the previous
// turn's prompt and output) or an exact repeat.
class Traffic {
 public:
  explicit Traffic(uint64_t seed) : rng_(seed, "test.kv_cache_differential") {}

  Sequence Next() {
    std::vector<PromptSegment> segments;
    const double kind = rng_.Uniform();
    if (kind < 0.3 && !history_.empty()) {
      segments = history_[rng_.UniformInt(history_.size())];  // a later turn
    } else {
      segments.push_back({sim::Combine(1, rng_.UniformInt(4)), Tokens(0, 40)});
      if (rng_.Uniform() < 0.3) segments.push_back({sim::Combine(2, rng_.UniformInt(6)), 12});
    }
    if (kind < 0.1 && !repeats_.empty()) {
      segments = repeats_[rng_.UniformInt(repeats_.size())];  // the same prompt again
    } else {
      segments.push_back({sim::Combine(3, next_salt_++), Tokens(1, 24)});
    }
    const PromptSegment output{sim::Combine(4, next_salt_++), Tokens(1, 30)};
    Sequence s;
    HashSequenceBlocks(segments, output, kBlock, &s.prompt, &s.output);
    Remember(&repeats_, segments);
    segments.push_back(output);
    Remember(&history_, segments);
    return s;
  }

  sim::RandomStream& rng() { return rng_; }

 private:
  uint32_t Tokens(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(rng_.UniformInt(hi - lo + 1));
  }
  void Remember(std::vector<std::vector<PromptSegment>>* list,
                const std::vector<PromptSegment>& segments) {
    if (list->size() < 30) {
      list->push_back(segments);
    } else {
      (*list)[rng_.UniformInt(list->size())] = segments;
    }
  }

  sim::RandomStream rng_;
  uint64_t next_salt_ = 0;
  std::vector<std::vector<PromptSegment>> history_, repeats_;
};

struct Running {
  Sequence seq;
  KvHandle handle;
  oracle::BlockKvHandle reference;
};

class KvCacheDifferentialTest
    : public ::testing::TestWithParam<std::tuple<EvictionOrder, uint32_t, uint64_t>> {
 protected:
  KvCacheDifferentialTest()
      : order_(std::get<0>(GetParam())),
        cache_(std::get<1>(GetParam()), order_),
        reference_(std::get<1>(GetParam()), order_),
        traffic_(std::get<2>(GetParam())) {}

  void ExpectSameState(int step) {
    ASSERT_EQ(cache_.used_blocks(), reference_.used_blocks()) << "step " << step;
    ASSERT_EQ(cache_.cached_blocks(), reference_.cached_blocks()) << "step " << step;
    ASSERT_EQ(cache_.evictable_blocks(), reference_.evictable_blocks()) << "step " << step;
    ASSERT_EQ(cache_.counters().lookups, reference_.counters().lookups);
    ASSERT_EQ(cache_.counters().hit_blocks, reference_.counters().hit_blocks);
    ASSERT_EQ(cache_.counters().evictions, reference_.counters().evictions) << "step " << step;
  }

  void Admit(Running r) {
    const BlockChain chain = r.seq.chain();
    const uint32_t match = cache_.MatchPrefix(chain);
    ASSERT_EQ(match, reference_.MatchPrefix(chain));
    sim::RandomStream& rng = traffic_.rng();
    // As a replica admits: the hit is capped below the whole sequence, the
    // first chunk may be short.
    const uint32_t max_hit = static_cast<uint32_t>(rng.UniformInt(chain.size() + 1));
    const uint32_t total = std::min(match, max_hit) + 1 + static_cast<uint32_t>(rng.UniformInt(12));
    const bool admitted = cache_.Admit(chain, total, max_hit, &r.handle);
    ASSERT_EQ(admitted, reference_.Admit(chain, total, max_hit, &r.reference));
    if (!admitted) return;
    ASSERT_EQ(r.handle.hit_blocks, r.reference.hit_blocks);
    running_.push_back(std::move(r));
    Running& added = running_.back();
    Register(&added, added.handle.registered_blocks() + static_cast<uint32_t>(rng.UniformInt(8)));
  }

  void Register(Running* r, uint32_t upto) {
    const BlockChain chain = r->seq.chain();
    upto = std::min({upto, chain.size(), r->handle.allocated_blocks()});
    if (upto <= r->handle.registered_blocks()) return;
    cache_.Register(chain, upto, &r->handle);
    reference_.Register(chain, upto, &r->reference);
    ASSERT_EQ(r->handle.allocated_blocks(), r->reference.allocated_blocks());
  }

  // One step of a running request: a prefill chunk or a decode block.
  void Progress(Running* r) {
    sim::RandomStream& rng = traffic_.rng();
    const uint32_t more = rng.Uniform() < 0.5 ? 1 : static_cast<uint32_t>(rng.UniformInt(10));
    if (more > 0) {
      const bool grown = cache_.Grow(more, &r->handle);
      ASSERT_EQ(grown, reference_.Grow(more, &r->reference));
    }
    Register(r, r->handle.registered_blocks() + more);
  }

  void Finish(size_t i, bool complete) {
    Running& r = running_[i];
    if (complete) Register(&r, r.seq.chain().size());
    cache_.Release(&r.handle);
    reference_.Release(&r.reference);
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  EvictionOrder order_;
  KvCache cache_;
  oracle::BlockKvCache reference_;
  Traffic traffic_;
  std::vector<Running> running_;
  uint64_t evictions_seen_ = 0;
};

TEST_P(KvCacheDifferentialTest, EveryDecisionMatchesThePerBlockCache) {
  sim::RandomStream& rng = traffic_.rng();
  for (int step = 0; step < 20000; ++step) {
    const double u = rng.Uniform();
    if (running_.size() < 10 && u < 0.35) {
      Admit(Running{traffic_.Next(), {}, {}});
    } else if (!running_.empty() && u < 0.85) {
      Progress(&running_[rng.UniformInt(running_.size())]);
    } else if (!running_.empty()) {
      Finish(rng.UniformInt(running_.size()), /*complete=*/rng.Uniform() < 0.8);
    }
    if (HasFatalFailure()) return;
    ExpectSameState(step);
    if (HasFatalFailure()) return;
    // After every step that evicted, the evictable blocks and their order:
    // the same blocks were evicted, and the same ones are next.
    if (cache_.counters().evictions != evictions_seen_ || step % 25 == 0) {
      evictions_seen_ = cache_.counters().evictions;
      ASSERT_EQ(cache_.EvictionList(), reference_.EvictionList()) << "step " << step;
    }
    if (step % 25 == 0) {
      ASSERT_EQ(cache_.CheckInvariants(), "") << "step " << step;
    }
  }
  while (!running_.empty()) Finish(0, true);
  EXPECT_EQ(cache_.EvictionList(), reference_.EvictionList());
  EXPECT_GT(cache_.counters().evictions, 1000u);  // the pool was under pressure
  EXPECT_GT(cache_.counters().hit_blocks, 1000u);
  EXPECT_EQ(cache_.CheckInvariants(), "");
}

INSTANTIATE_TEST_SUITE_P(
    OrdersPoolsAndSeeds, KvCacheDifferentialTest,
    ::testing::Combine(::testing::Values(EvictionOrder::kRadixLru, EvictionOrder::kVllmFreeQueue),
                       ::testing::Values(60u, 400u), ::testing::Values(1u, 2u, 3u)));

}  // namespace
}  // namespace kvroute::models
