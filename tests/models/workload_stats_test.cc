// The run-at-a-time workload statistics against a plain block-at-a-time
// replay: an infinite cache, LRU caches of several sizes and the recency
// windows must count exactly the same tokens.
#include "models/workload_stats.h"

#include <gtest/gtest.h>

#include <list>
#include <memory>
#include <unordered_map>

#include "models/session_plan.h"
#include "models/trace_reader.h"
#include "models/trace_replay.h"
#include "models/workload.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

// Every block looked up and touched one by one, with node-based containers.
class BlockReplay {
 public:
  explicit BlockReplay(const WorkloadStatsOptions& o)
      : o_(o),
        lru_(o.lru_blocks.size()),
        lru_hits_(o.lru_blocks.size(), 0),
        window_hits_(o.windows_s.size(), 0) {}

  void Add(const Request& r) {
    prompt_ += r.prompt_tokens;
    // The blocks the request leaves cached: its prompt's, and its output's
    // when generated tokens are cached; hits count on the prompt only.
    std::vector<uint64_t> cached = r.hashes.prompt();
    if (o_.cache_generated_tokens) {
      cached.insert(cached.end(), r.hashes.output().begin(), r.hashes.output().end());
    }
    for (size_t j = 0; j < cached.size(); ++j) {
      const uint64_t h = cached[j];
      auto it = seen_.find(h);
      if (it != seen_.end() && j < r.hashes.prompt().size()) {
        ideal_ += o_.block_size;
        double age = sim::ToSeconds(r.arrival - it->second);
        for (size_t w = 0; w < o_.windows_s.size(); ++w) {
          if (age <= o_.windows_s[w]) window_hits_[w] += o_.block_size;
        }
      }
      seen_[h] = r.arrival;
    }
    for (size_t c = 0; c < lru_.size(); ++c) {
      Lru& cache = lru_[c];
      size_t n = 0;
      while (n < r.hashes.prompt().size() && cache.where.count(r.hashes.prompt()[n])) ++n;
      lru_hits_[c] += o_.block_size * n;
      for (size_t j = cached.size(); j-- > 0;) {
        uint64_t h = cached[j];
        auto it = cache.where.find(h);
        if (it != cache.where.end()) cache.order.erase(it->second);
        cache.order.push_front(h);
        cache.where[h] = cache.order.begin();
        if (cache.order.size() > std::max<uint64_t>(1, o_.lru_blocks[c])) {
          cache.where.erase(cache.order.back());
          cache.order.pop_back();
        }
      }
    }
  }

  void ExpectSame(const WorkloadStats& s) const {
    double prompt = static_cast<double>(prompt_);
    EXPECT_EQ(s.ideal_hit_rate, static_cast<double>(ideal_) / prompt);
    for (size_t c = 0; c < lru_.size(); ++c) {
      EXPECT_EQ(s.lru_hit_rates[c], static_cast<double>(lru_hits_[c]) / prompt) << c;
    }
    for (size_t w = 0; w < window_hits_.size(); ++w) {
      EXPECT_EQ(s.seen_within_window[w], static_cast<double>(window_hits_[w]) / prompt) << w;
    }
  }

 private:
  struct Lru {
    std::list<uint64_t> order;
    std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where;
  };
  WorkloadStatsOptions o_;
  std::unordered_map<uint64_t, sim::Time> seen_;
  std::vector<Lru> lru_;
  uint64_t prompt_ = 0, ideal_ = 0;
  std::vector<uint64_t> lru_hits_, window_hits_;
};

// Feeds both from `source`, checking along the way that the hit rates are
// not trivially 0 or 1.
void CompareOn(RequestSource& source, const WorkloadStatsOptions& o) {
  WorkloadStatsCollector fast(o);
  BlockReplay slow(o);
  Request r;
  while (source.Next(&r)) {
    fast.Add(r, source.segments());
    slow.Add(r);
  }
  WorkloadStats s = fast.Finish();
  EXPECT_GT(s.requests, 1000u);
  EXPECT_GT(s.ideal_hit_rate, 0.05);
  EXPECT_LT(s.ideal_hit_rate, 0.99);
  slow.ExpectSame(s);
}

TEST(WorkloadStatsTest, SessionsWithRagMatchABlockByBlockReplay) {
  WorkloadConfig c;
  c.keys = 50;
  c.system_tokens = 100;  // not a multiple of the block: blocks straddle segments
  c.new_tokens = LengthDistribution::Uniform(0, 70);
  c.output_tokens = LengthDistribution::Uniform(1, 90);
  c.no_prefix_share = 0.2;
  c.rag = {.documents = 40,
           .popularity_s = 0.8,
           .chunks = LengthDistribution::Uniform(0, 3),
           .chunk_tokens = 40};
  c.sessions.turns = LengthDistribution::Uniform(1, 5);
  c.sessions.think_time_s = LengthDistribution::Uniform(1, 30);
  WorkloadGenerator g(c, 11, 40, sim::FromSeconds(300));
  CompareOn(
      g,
      {.block_size = 16, .lru_blocks = {1, 50, 700, 5000, 1u << 20}, .windows_s = {0, 3, 30, 100}});
}

// Closed-loop sessions with agent loops (session_plan.h), as an instant
// cluster would send them: tool outputs and earlier responses are segments
// of their own, and every figure matches the block-by-block replay.
TEST(WorkloadStatsTest, AgentSessionsMatchABlockByBlockReplay) {
  WorkloadConfig c;
  c.keys = 30;
  c.system_tokens = 100;
  c.new_tokens = LengthDistribution::Uniform(0, 70);
  c.output_tokens = LengthDistribution::Uniform(1, 90);
  c.no_prefix_share = 0.1;
  c.sessions.turns = LengthDistribution::Uniform(1, 3);
  c.sessions.think_time_s = LengthDistribution::Uniform(1, 30);
  c.sessions.closed_loop = true;
  c.sessions.agent = {.tool_calls = LengthDistribution::Uniform(0, 4),
                      .tool_output_tokens = LengthDistribution::Uniform(1, 200),
                      .tool_latency_s = LengthDistribution::Uniform(0, 3)};
  for (bool generated : {false, true}) {
    SessionSource source(c, 8, 40, sim::FromSeconds(300));
    CompareOn(source, {.block_size = 16,
                       .lru_blocks = {1, 50, 700, 5000, 1u << 20},
                       .windows_s = {0, 3, 30, 100},
                       .cache_generated_tokens = generated});
  }
}

// With generated tokens cached, a later turn hits the blocks earlier turns
// generated: the ideal hit rate rises, and every figure still matches.
TEST(WorkloadStatsTest, CachedGeneratedTokensMatchABlockByBlockReplay) {
  WorkloadConfig c;
  c.keys = 30;
  c.system_tokens = 100;
  c.new_tokens = LengthDistribution::Uniform(0, 70);
  c.output_tokens = LengthDistribution::Uniform(1, 90);
  c.sessions.turns = LengthDistribution::Uniform(1, 5);
  c.sessions.think_time_s = LengthDistribution::Uniform(1, 30);
  WorkloadStatsOptions o{
      .block_size = 16, .lru_blocks = {1, 50, 700, 5000, 1u << 20}, .windows_s = {0, 3, 30, 100}};
  double without = 0;
  for (bool generated : {false, true}) {
    o.cache_generated_tokens = generated;
    WorkloadGenerator g(c, 5, 40, sim::FromSeconds(300));
    WorkloadStatsCollector fast(o);
    BlockReplay slow(o);
    Request r;
    while (g.Next(&r)) {
      fast.Add(r, g.segments());
      slow.Add(r);
    }
    WorkloadStats s = fast.Finish();
    slow.ExpectSame(s);
    if (generated) {
      EXPECT_GT(s.ideal_hit_rate, without + 0.05);
    } else {
      without = s.ideal_hit_rate;
    }
  }
}

// Mooncake's 512-token blocks as segments; a prompt's last block id covers
// fewer tokens than another prompt's same id, so runs end inside groups.
TEST(WorkloadStatsTest, MooncakeTraceMatchesABlockByBlockReplay) {
  TraceConfig config{.format = TraceConfig::Format::kMooncake,
                     .file = "../shared/traces/mooncake/conversation_trace.jsonl",
                     .limit = 1500};
  auto trace = std::make_shared<const Trace>(ReadTrace(config));
  TraceReplay replay(trace, false, 1.0, sim::kNever, 16);
  CompareOn(replay,
            {.block_size = 16, .lru_blocks = {100, 25'000, 200'000}, .windows_s = {10, 60, 300}});
}

// Random prompts from a small pool of segments whose lengths vary between
// prompts (salt s has 1 to 40 tokens), with 3-token blocks: groups split
// often, and the touch order is renumbered many times.
class RandomSegments : public RequestSource {
 public:
  bool Next(Request* out) override {
    if (next_ == 30'000) return false;
    segments_.clear();
    uint32_t pieces = 1 + static_cast<uint32_t>(rng_.Uniform() * 6);
    for (uint32_t i = 0; i < pieces; ++i) {
      uint64_t salt = 1 + static_cast<uint64_t>(rng_.Uniform() * (i == 0 ? 3 : 8));
      uint32_t tokens = static_cast<uint32_t>(rng_.Uniform() * 41);
      segments_.push_back({salt, tokens});
    }
    if (TotalTokens(segments_) == 0) segments_.push_back({next_ + 100, 1});
    out->id = next_;
    out->arrival = sim::FromSeconds(0.01 * static_cast<double>(next_++));
    out->key = static_cast<uint32_t>(segments_[0].salt);
    out->prompt_tokens = TotalTokens(segments_);
    out->output_tokens = 1;
    HashPromptBlocks(segments_, 3, out->hashes.mutable_prompt());
    return true;
  }
  const std::vector<double>& key_shares() const override { return shares_; }
  std::vector<double> tenant_shares() const override { return shares_; }
  std::span<const PromptSegment> segments() const override { return segments_; }

 private:
  sim::RandomStream rng_{7, "test.segments"};
  uint64_t next_ = 0;
  std::vector<PromptSegment> segments_;
  std::vector<double> shares_{1};
};

TEST(WorkloadStatsTest, RandomSegmentsMatchABlockByBlockReplay) {
  RandomSegments source;
  CompareOn(source,
            {.block_size = 3, .lru_blocks = {1, 7, 60, 400, 3000}, .windows_s = {0.05, 1, 20}});
}

TEST(WorkloadStatsTest, RefusesAStreamThatMixesSegmentsAndNone) {
  WorkloadStatsCollector stats({.block_size = 16, .lru_blocks = {}, .windows_s = {}});
  Request r;
  r.prompt_tokens = 32;
  *r.hashes.mutable_prompt() = {5, 6};
  std::vector<PromptSegment> segments = {{1, 32}};
  stats.Add(r, segments);
  EXPECT_THROW(stats.Add(r), std::invalid_argument);
}

}  // namespace
}  // namespace kvroute::models
