// Coasting decodes are exact (replica.h, "Coasting decodes"): two replicas
// given the same random traffic, one letting decodes coast and one visiting
// every decode every iteration, agree after every iteration on the
// iteration's duration, every observer call and its time, the load signals,
// the counters and the KV pool, under preemption, failures, withdrawals,
// prefix sharing and generated-token reuse, in both eviction orders and with
// asynchronous scheduling.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/replica.h"

namespace kvroute::models {
namespace {

// An iteration time that depends on every field of the batch, so that a
// wrong count or context of the coasting decodes changes it.
class ShapeCostModel : public CostModel {
 public:
  sim::Time IterationTime(const BatchShape& b) const override {
    return 1000 + 7 * b.prefill_tokens + 13 * b.decode_sequences + 3 * b.sequences +
           static_cast<sim::Time>(b.decode_context_tokens) / 2 +
           static_cast<sim::Time>(b.prefill_attention_context) / 64;
  }
};

struct Event {
  char kind;  // a(dmitted), f(irst token), c(ompleted)
  uint32_t slot;
  sim::Time time;
  bool operator==(const Event&) const = default;
};

// One replica with its pool; completed requests return their slots.
struct Side : ReplicaObserver {
  Side(const SchedulerConfig& config, uint32_t kv_blocks)
      : replica(0, cost, config, kv_blocks, 16, pool, load) {}
  void OnAdmitted(uint32_t slot, sim::Time t) override { events.push_back({'a', slot, t}); }
  void OnFirstToken(uint32_t slot, sim::Time t) override { events.push_back({'f', slot, t}); }
  void OnCompleted(uint32_t slot, sim::Time t) override {
    events.push_back({'c', slot, t});
    // What a request's last iteration leaves must be its whole output.
    EXPECT_EQ(pool[slot].generated_tokens, pool[slot].request.output_tokens);
    pool.Release(slot);
  }

  ShapeCostModel cost;
  RequestPool pool;
  ReplicaLoad load;
  Replica replica;
  std::vector<Event> events;
};

void ExpectSame(const Side& a, const Side& b) {
  ASSERT_EQ(a.events, b.events);
  EXPECT_EQ(a.load.waiting, b.load.waiting);
  EXPECT_EQ(a.load.running, b.load.running);
  EXPECT_EQ(a.load.prefill_tokens, b.load.prefill_tokens);
  EXPECT_EQ(a.load.decode_tokens, b.load.decode_tokens);
  EXPECT_EQ(a.load.kv_utilization, b.load.kv_utilization);
  const ReplicaCounters &x = a.replica.counters(), &y = b.replica.counters();
  EXPECT_EQ(std::tie(x.admitted, x.completed, x.preemptions, x.failures, x.iterations,
                     x.prefill_tokens_computed, x.max_batch_tokens),
            std::tie(y.admitted, y.completed, y.preemptions, y.failures, y.iterations,
                     y.prefill_tokens_computed, y.max_batch_tokens));
  const KvCache &p = a.replica.kv_cache(), &q = b.replica.kv_cache();
  EXPECT_EQ(p.used_blocks(), q.used_blocks());
  EXPECT_EQ(p.evictable_blocks(), q.evictable_blocks());
  EXPECT_EQ(p.counters().lookups, q.counters().lookups);
  EXPECT_EQ(p.counters().hit_blocks, q.counters().hit_blocks);
  EXPECT_EQ(p.counters().evictions, q.counters().evictions);
  EXPECT_EQ(p.CheckInvariants(), "");
}

struct Case {
  const char* name;
  SchedulerConfig config;
  uint32_t kv_blocks;
  // The tight pools are there for the preemption path: each must take it.
  uint64_t min_preemptions = 0;
};

// A prompt: one of a few system prompts, maybe an earlier request's prompt
// and output again (a session's next turn), then new tokens; its output
// continues the chain.
struct PromptMaker {
  std::vector<std::vector<PromptSegment>> earlier;  // prompt and output of past requests

  void Make(std::mt19937_64& rng, uint64_t id, Request* r) {
    std::vector<PromptSegment> segments;
    if (!earlier.empty() && rng() % 3 == 0) {
      segments = earlier[rng() % earlier.size()];
    } else {
      segments.push_back({1 + rng() % 4, static_cast<uint32_t>(16 * (2 + rng() % 12))});
    }
    segments.push_back({1000 + id, static_cast<uint32_t>(1 + rng() % 150)});
    const PromptSegment output{(1ULL << 40) + id, static_cast<uint32_t>(1 + rng() % 90)};
    r->id = id;
    r->prompt_tokens = TotalTokens(segments);
    r->output_tokens = output.tokens;
    HashSequenceBlocks(segments, output, 16, r->hashes.mutable_prompt(),
                       r->hashes.mutable_output());
    segments.push_back(output);
    if (TotalTokens(segments) < 1200) earlier.push_back(segments);
    if (earlier.size() > 40) earlier.erase(earlier.begin());
  }
};

void Replay(const Case& c, uint64_t seed) {
  SchedulerConfig visiting = c.config;
  visiting.coast_decodes = false;
  Side coasting(c.config, c.kv_blocks), visited(visiting, c.kv_blocks);
  std::mt19937_64 rng(seed);
  PromptMaker prompts;
  sim::Time now = 0;
  uint64_t next_id = 0;
  std::vector<uint32_t> dropped_a, dropped_b;
  for (int step = 0; step < 3000; ++step) {
    for (int n = static_cast<int>(rng() % 3); n > 0; --n) {
      Request request;
      prompts.Make(rng, next_id++, &request);
      for (Side* side : {&coasting, &visited}) {
        const uint32_t slot = side->pool.Acquire();
        side->pool[slot].request = request;
        if (!side->replica.Enqueue(slot, now)) side->pool.Release(slot);
      }
    }
    if (rng() % 97 == 0 && next_id > 0) {  // a router takes a waiting request back
      const uint64_t id = rng() % next_id;
      const uint32_t a = coasting.replica.WithdrawWaiting(id);
      ASSERT_EQ(a, visited.replica.WithdrawWaiting(id));
      if (a != Replica::kNoSlot) coasting.pool.Release(a), visited.pool.Release(a);
    }
    if (rng() % 1500 == 0) {  // the replica fails mid-run
      dropped_a.clear();
      dropped_b.clear();
      coasting.replica.Fail(now, &dropped_a);
      visited.replica.Fail(now, &dropped_b);
      ASSERT_EQ(dropped_a, dropped_b);
      for (uint32_t slot : dropped_a) coasting.pool.Release(slot), visited.pool.Release(slot);
    }
    const sim::Time d = coasting.replica.StartIteration(now, coasting);
    ASSERT_EQ(d, visited.replica.StartIteration(now, visited)) << c.name << " step " << step;
    now += d == 0 ? 500 : d;
    if (d != 0) {
      coasting.replica.FinishIteration(now, coasting);
      visited.replica.FinishIteration(now, visited);
    }
    ExpectSame(coasting, visited);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << c.name << " seed " << seed << " step " << step;
      return;
    }
  }
  EXPECT_GT(coasting.replica.counters().completed, 500u) << c.name;
  EXPECT_GE(coasting.replica.counters().preemptions, c.min_preemptions) << c.name << " " << seed;
}

TEST(ReplicaCoastingTest, EveryIterationIsTheSameAsVisitingEveryDecode) {
  const Case cases[] = {
      {"roomy radix", {.max_num_batched_tokens = 512, .max_num_seqs = 32}, 4000},
      {"tight radix", {.max_num_batched_tokens = 512, .max_num_seqs = 64}, 260, 50},
      {"tight free queue",
       {.max_num_batched_tokens = 256,
        .max_num_seqs = 48,
        .eviction = EvictionOrder::kVllmFreeQueue},
       300,
       50},
      {"prompt blocks only",
       {.max_num_batched_tokens = 512, .max_num_seqs = 32, .cache_generated_tokens = false},
       400},
      {"async", {.max_num_batched_tokens = 384, .max_num_seqs = 40, .async_scheduling = true}, 350},
      {"more sequences than budget (nothing coasts)",
       {.max_num_batched_tokens = 24, .max_num_seqs = 64},
       400},
  };
  for (const Case& c : cases) {
    for (uint64_t seed : {1, 2, 3}) {
      Replay(c, seed);
      if (HasFailure()) return;  // the first difference is the one to read
    }
  }
}

}  // namespace
}  // namespace kvroute::models
