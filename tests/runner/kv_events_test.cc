// cluster.kv_events end to end: the key's validation, and that the routers
// reading the delayed view behave exactly as with the exact caches when
// events are instant and never lost, and deterministically when they are not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

const char kEventsScenario[] = R"(name: events
seed: 3
duration_s: 60
warmup_s: 10
drain_s: 30
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 4}]
workload:
  keys: 300
  rate_skew: {kind: zipf, s: 0.9}
  prompt: {system_tokens: 1024, new_tokens: {kind: uniform, min: 32, max: 512}}
  output_tokens: {kind: uniform, min: 1, max: 100}
policies:
  - dynamo_kv
  - {name: llmd, prefix_cache: precise}
  - {name: sglang_cache_aware, cache_state: exact}
sweep: {qps: [40]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
)";

Scenario LoadWithEvents(const std::vector<std::string>& overrides = {}) {
  return LoadScenarioText(kEventsScenario, "events.yaml", overrides);
}

// The point's JSON without the view's own counters, which exist only with it.
std::string Outcome(const Scenario& s, size_t policy) {
  analysis::PointResult r = RunPoint(s, PointSpec{policy, 40, 3});
  r.kv_view_lookups = r.kv_view_overestimated = r.kv_view_underestimated = 0;
  r.kv_view_error_blocks = 0;
  return analysis::PointToJson(r, s.slos);
}

// A large KV pool and a small one, where many blocks are evicted and their
// removals published.
const char* const kPools[] = {"cluster.kv_blocks=20000", "cluster.kv_blocks=2000"};

TEST(KvEventsTest, InstantLosslessEventsRouteExactlyAsTheExactCaches) {
  for (const char* pool : kPools) {
    const Scenario exact = LoadWithEvents({pool});
    const Scenario instant = LoadWithEvents({pool, "cluster.kv_events={delay_s: 0, loss: 0}"});
    const Scenario late = LoadWithEvents({pool, "cluster.kv_events={delay_s: 2}"});
    ASSERT_FALSE(exact.kv_events.enabled);
    ASSERT_TRUE(instant.kv_events.enabled);
    for (size_t p = 0; p < exact.policies.size(); ++p) {
      const std::string expected = Outcome(exact, p);
      EXPECT_EQ(Outcome(instant, p), expected) << exact.policies[p].label << " " << pool;
      // The comparison can tell: late events change where requests go.
      EXPECT_NE(Outcome(late, p), expected) << exact.policies[p].label << " " << pool;
    }
  }
}

TEST(KvEventsTest, TheViewIsAskedAndRightWhenInstant) {
  for (const char* pool : kPools) {
    const Scenario instant = LoadWithEvents({pool, "cluster.kv_events={delay_s: 0}"});
    for (size_t p = 0; p < instant.policies.size(); ++p) {
      analysis::PointResult r = RunPoint(instant, PointSpec{p, 40, 3});
      EXPECT_GT(r.kv_view_lookups, 0u) << instant.policies[p].label;
      EXPECT_EQ(r.kv_view_overestimated + r.kv_view_underestimated, 0u) << pool;
      EXPECT_EQ(r.kv_view_error_blocks, 0u);
      if (pool == kPools[1]) {
        EXPECT_GT(r.cache_evictions, 0u);
      }
    }
  }
}

TEST(KvEventsTest, LateLossyEventsMisleadTheRouterDeterministically) {
  // A small KV pool, so that blocks are evicted and removals can be lost.
  const Scenario s =
      LoadWithEvents({"cluster.kv_events={delay_s: 0.05, loss: 0.3}", "cluster.kv_blocks=2000"});
  for (size_t p = 0; p < s.policies.size(); ++p) {
    analysis::PointResult a = RunPoint(s, PointSpec{p, 40, 3});
    analysis::PointResult b = RunPoint(s, PointSpec{p, 40, 3});
    EXPECT_EQ(analysis::PointToJson(a, s.slos), analysis::PointToJson(b, s.slos));
    EXPECT_GT(a.kv_view_overestimated, 0u) << s.policies[p].label;  // lost removals
    EXPECT_GT(a.kv_view_underestimated, 0u) << s.policies[p].label;
  }
}

TEST(KvEventsTest, OtherPoliciesKeepTheExactCaches) {
  const Scenario s = LoadWithEvents({"policies=[flat_lb, {name: llmd, prefix_cache: approximate}]",
                                     "cluster.kv_events={delay_s: 1, loss: 0.5}"});
  const Scenario exact =
      LoadWithEvents({"policies=[flat_lb, {name: llmd, prefix_cache: approximate}]"});
  for (size_t p = 0; p < s.policies.size(); ++p) {
    EXPECT_EQ(Outcome(s, p), Outcome(exact, p)) << s.policies[p].label;
  }
}

std::string EventsErrorOf(const std::string& events) {
  try {
    LoadWithEvents({"cluster.kv_events=" + events});
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(KvEventsTest, BadKeysAreRejectedByName) {
  EXPECT_NE(
      EventsErrorOf("{delay_s: -0.1}").find("key 'cluster.kv_events.delay_s': must be in [0,"),
      std::string::npos)
      << EventsErrorOf("{delay_s: -0.1}");
  EXPECT_NE(EventsErrorOf("{loss: 1.5}").find("key 'cluster.kv_events.loss': must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(EventsErrorOf("{loss: -0.5}").find("cluster.kv_events.loss"), std::string::npos);
  const std::string unknown = EventsErrorOf("{delay: 1}");
  EXPECT_NE(unknown.find("'cluster.kv_events.delay': unknown key"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("did you mean 'delay_s'"), std::string::npos);
  EXPECT_NE(EventsErrorOf("0.1").find("cluster.kv_events"), std::string::npos);
}

TEST(KvEventsTest, ErrorsInAFileNameItsLine) {
  std::string text = kEventsScenario;
  text.replace(text.find("  deployments:"), 0, "  kv_events: {delay_s: 1, los: 0}\n");
  try {
    LoadScenarioText(text, "events.yaml", {});
    FAIL() << "accepted an unknown key";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("events.yaml:8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cluster.kv_events.los"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvroute::sim
