#include <gtest/gtest.h>

#include <map>

#include "models/workload.h"
#include "models/workload_stats.h"

namespace kvroute::models {
namespace {

WorkloadConfig SessionChatConfig() {
  WorkloadConfig c;
  c.keys = 20;
  c.system_tokens = 100;
  c.new_tokens = LengthDistribution::Uniform(5, 60);
  c.output_tokens = LengthDistribution::Uniform(1, 80);
  c.sessions.turns = LengthDistribution::Fixed(3);
  c.sessions.think_time_s = LengthDistribution::Fixed(10);
  return c;
}

// A turn's prompt is the previous prompt + the previous output + new user
// tokens, it arrives think time after the previous turn, and it starts with
// every full block of the previous prompt.
TEST(SessionTest, TurnsGrowTheirPromptAndShareBlocks) {
  WorkloadGenerator g(SessionChatConfig(), 2, 5, sim::FromSeconds(500));
  std::map<uint64_t, std::vector<Request>> sessions;
  Request r;
  sim::Time last = 0;
  while (g.Next(&r)) {
    EXPECT_GE(r.arrival, last);
    last = r.arrival;
    sessions[r.session].push_back(r);
  }
  int checked = 0;
  for (const auto& [id, turns] : sessions) {
    for (size_t t = 1; t < turns.size(); ++t) {
      const Request &a = turns[t - 1], &b = turns[t];
      EXPECT_EQ(b.key, a.key);
      EXPECT_EQ(b.arrival - a.arrival, sim::FromSeconds(10));
      uint32_t user = b.prompt_tokens - a.prompt_tokens - a.output_tokens;
      EXPECT_GE(user, 5u);
      EXPECT_LE(user, 60u);
      ASSERT_GE(b.hashes.prompt().size(), a.hashes.prompt().size());
      for (size_t j = 0; j < a.hashes.prompt().size(); ++j) {
        EXPECT_EQ(b.hashes.prompt()[j], a.hashes.prompt()[j]);
      }
      ++checked;
    }
    EXPECT_LE(turns.size(), 3u);
  }
  EXPECT_GT(checked, 1000);
}

// Sessions start at qps / turns, so all turns together arrive at the load.
TEST(SessionTest, TurnsTogetherArriveAtTheLoad) {
  WorkloadGenerator g(SessionChatConfig(), 3, 20, sim::FromSeconds(5000));
  Request r;
  int n = 0;
  while (g.Next(&r)) ++n;
  // sd of the session count ~ sqrt(33,333) ~ 183 sessions, x3 turns ~ 550.
  EXPECT_NEAR(n, 100000, 2500);
}

// Sessions start in steady state (a lead-in before time 0), so a run much
// shorter than the sessions still gets the load from its first second to its
// last. Without the lead-in the first minute would get ~40% of it and the
// run ~78%. Counts: Poisson sessions, var <= mean x E[turns^2]/E[turns] =
// mean x 4.33, so sd ~1.7% of 15,000 and ~3.8% of 3,000.
TEST(SessionTest, ShortRunsArriveAtTheLoadThroughout) {
  WorkloadConfig c = SessionChatConfig();
  c.sessions.turns = LengthDistribution::Uniform(1, 6);
  c.sessions.think_time_s = LengthDistribution::Uniform(20, 60);
  for (uint64_t seed : {1, 2}) {
    WorkloadGenerator g(c, seed, 50, sim::FromSeconds(300));
    Request r;
    int total = 0, first = 0, last = 0;
    while (g.Next(&r)) {
      ASSERT_GE(r.arrival, 0);
      ++total;
      first += r.arrival < sim::FromSeconds(60);
      last += r.arrival >= sim::FromSeconds(240);
    }
    EXPECT_NEAR(total, 15000, 750) << seed;
    EXPECT_NEAR(first, 3000, 450) << seed;
    EXPECT_NEAR(last, 3000, 450) << seed;
  }
}

TEST(SessionTest, NoPrefixShareRemovesReuse) {
  WorkloadConfig c = SessionChatConfig();
  c.sessions.turns = LengthDistribution::Fixed(1);
  WorkloadStatsOptions o{.block_size = 16, .lru_blocks = {}, .windows_s = {}};
  auto ideal = [&](double share) {
    c.no_prefix_share = share;
    WorkloadGenerator g(c, 4, 50, sim::FromSeconds(200));
    WorkloadStatsCollector stats(o);
    Request r;
    while (g.Next(&r)) stats.Add(r);
    return stats.Finish().ideal_hit_rate;
  };
  double shared = ideal(0), half = ideal(0.5), none = ideal(1);
  EXPECT_GT(shared, 0.5);
  EXPECT_NEAR(half, shared / 2, 0.05);  // ~10,000 requests: binomial sd 0.5%
  EXPECT_EQ(none, 0);
}

TEST(SessionTest, RagChunksAreSharedAcrossKeysOnlyAfterTheSystemPrompt) {
  WorkloadConfig c = SessionChatConfig();
  c.system_tokens = 0;
  c.sessions.turns = LengthDistribution::Fixed(1);
  c.rag = {.documents = 3,
           .popularity_s = 0,
           .chunks = LengthDistribution::Fixed(1),
           .chunk_tokens = 64};
  WorkloadGenerator g(c, 6, 10, sim::FromSeconds(100));
  std::map<uint64_t, int> first_blocks;
  Request r;
  while (g.Next(&r)) ++first_blocks[r.hashes.prompt().at(0)];
  EXPECT_EQ(first_blocks.size(), 3u);  // one chunk of one of three documents
}

TEST(WorkloadStatsTest, CountsIdealLruAndWindowHits) {
  WorkloadStatsOptions o{.block_size = 16, .lru_blocks = {2, 100}, .windows_s = {1, 10}};
  WorkloadStatsCollector stats(o);
  Request r;
  r.prompt_tokens = 64;
  *r.hashes.mutable_prompt() = {11, 12, 13, 14};
  stats.Add(r);
  r.arrival = sim::FromSeconds(5);
  stats.Add(r);
  WorkloadStats s = stats.Finish();
  EXPECT_EQ(s.requests, 2u);
  EXPECT_DOUBLE_EQ(s.ideal_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(s.lru_hit_rates[0], 0.25);  // 2 blocks kept: the first two (a prefix)
  EXPECT_DOUBLE_EQ(s.lru_hit_rates[1], 0.5);
  EXPECT_DOUBLE_EQ(s.seen_within_window[0], 0);  // seen 5 s before
  EXPECT_DOUBLE_EQ(s.seen_within_window[1], 0.5);
}

}  // namespace
}  // namespace kvroute::models
