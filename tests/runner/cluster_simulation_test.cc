#include "sim/runner/cluster_simulation.h"

#include <gtest/gtest.h>

#include "analysis/json_writer.h"
#include "policies/registry.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

Scenario Small(const std::vector<std::string>& overrides = {}) {
  const char* text = R"(name: small
seed: 1
duration_s: 120
warmup_s: 20
drain_s: 60
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 4}]
workload:
  keys: 200
  prompt: {system_tokens: 1024, new_tokens: {kind: uniform, min: 32, max: 512}}
  output_tokens: {kind: uniform, min: 1, max: 200}
policies: [round_robin, random, flat_lb, sticky, {name: cacheroute, q_cap: 10, slots_per_replica: 40, interval_s: 30}]
sweep: {qps: [10, 20]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
)";
  return LoadScenarioText(text, "small", overrides);
}

TEST(ClusterSimulationTest, SamePointTwiceIsBitIdentical) {
  Scenario s = Small();
  for (size_t p = 0; p < s.policies.size(); ++p) {
    PointSpec spec{p, 20, 3};
    EXPECT_EQ(analysis::PointToJson(RunPoint(s, spec), s.slos),
              analysis::PointToJson(RunPoint(s, spec), s.slos))
        << s.policies[p].name;
  }
}

// Every registered policy runs in the simulation, side by side, deterministically.
TEST(ClusterSimulationTest, EveryRegisteredPolicyRunsDeterministically) {
  std::string list;
  for (const policies::PolicyInfo& info : policies::PolicyTable()) {
    list += (list.empty() ? "" : ", ") + info.name;
  }
  Scenario s = Small({"policies=[" + list + "]", "duration_s=60"});
  ASSERT_EQ(s.policies.size(), policies::PolicyTable().size());
  for (size_t p = 0; p < s.policies.size(); ++p) {
    analysis::PointResult r = RunPoint(s, PointSpec{p, 20, 2});
    EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected) << s.policies[p].name;
    EXPECT_GT(r.completed, 0u) << s.policies[p].name;
    EXPECT_EQ(analysis::PointToJson(r, s.slos),
              analysis::PointToJson(RunPoint(s, PointSpec{p, 20, 2}), s.slos))
        << s.policies[p].name;
  }
}

// Polled load signals: 0 is live; a long poll period blinds join-shortest-queue,
// which then herds every request between polls onto one replica.
TEST(ClusterSimulationTest, StaleSignalsChangeLoadAwareRouting) {
  auto run = [](const std::string& refresh) {
    Scenario s = Small({"policies=[{name: least_loaded, measure: tokens}]",
                        "cluster.signal_refresh_s=" + refresh});
    return RunPoint(s, PointSpec{0, 20, 1});
  };
  analysis::PointResult live = run("0"), stale = run("5");
  Scenario s = Small({"policies=[{name: least_loaded, measure: tokens}]"});
  EXPECT_EQ(analysis::PointToJson(live, s.slos),
            analysis::PointToJson(RunPoint(s, PointSpec{0, 20, 1}), s.slos));
  EXPECT_GT(stale.imbalance, live.imbalance);
}

TEST(ClusterSimulationTest, EveryOfferedRequestCompletesOrIsCounted) {
  Scenario s = Small();
  for (double qps : {10.0, 400.0}) {  // comfortable, and far past capacity
    for (size_t p = 0; p < s.policies.size(); ++p) {
      analysis::PointResult r = RunPoint(s, PointSpec{p, qps, 1});
      EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected)
          << s.policies[p].name << " " << qps;
      EXPECT_GT(r.offered, 0u);
    }
  }
}

TEST(ClusterSimulationTest, OverloadLeavesWorkUnfinishedAndFailsTheSlo) {
  Scenario s = Small();
  analysis::PointResult r = RunPoint(s, PointSpec{2, 400, 1});
  EXPECT_GT(r.unfinished, 0u);
  EXPECT_FALSE(s.slos[0].Met(r.slo_values[0]));
}

TEST(ClusterSimulationTest, AllPoliciesSeeTheSameRequests) {
  Scenario s = Small();
  analysis::PointResult a = RunPoint(s, PointSpec{0, 20, 5});
  for (size_t p = 1; p < s.policies.size(); ++p) {
    analysis::PointResult b = RunPoint(s, PointSpec{p, 20, 5});
    EXPECT_EQ(a.offered, b.offered);
    EXPECT_EQ(a.measured, b.measured);
  }
}

TEST(ClusterSimulationTest, AffinityRaisesTheHitRateOverCacheBlindBalancing) {
  // 200 keys x 64 shared blocks do not fit one replica's cache several times
  // over when every replica sees every key; with affinity each sees a quarter.
  Scenario s = Small({"cluster.kv_blocks=4000"});
  analysis::PointResult flat = RunPoint(s, PointSpec{2, 20, 1});
  analysis::PointResult sticky = RunPoint(s, PointSpec{3, 20, 1});
  analysis::PointResult planned = RunPoint(s, PointSpec{4, 20, 1});
  EXPECT_GT(sticky.token_hit_rate, flat.token_hit_rate + 0.05);
  EXPECT_GT(planned.token_hit_rate, flat.token_hit_rate + 0.05);
  EXPECT_GT(flat.cache_evictions, sticky.cache_evictions);
}

TEST(ClusterSimulationTest, StickyConcentratesLoadAndFlatLbSpreadsIt) {
  Scenario s = Small();
  analysis::PointResult flat = RunPoint(s, PointSpec{2, 20, 1});
  analysis::PointResult sticky = RunPoint(s, PointSpec{3, 20, 1});
  EXPECT_LT(flat.imbalance, 1.1);
  EXPECT_GT(sticky.imbalance, flat.imbalance);
}

TEST(ClusterSimulationTest, CacheRouteRebuildsEveryInterval) {
  Scenario s = Small();
  analysis::PointResult r = RunPoint(s, PointSpec{4, 20, 1});
  double rebuilds = 0;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "plan_rebuilds") rebuilds = value;
  }
  EXPECT_EQ(rebuilds, 4);  // the initial plan, then ticks at 30, 60 and 90 s
}

// A replica fails at 40 s and comes back cold 30 s later: its requests are
// retried elsewhere, nothing is lost, and the run stays deterministic.
TEST(ClusterSimulationTest, FailedReplicaRequestsAreRetriedElsewhere) {
  Scenario s =
      Small({"failures={retry_limit: 1, schedule: [{replica: 1, at_s: 40, recover_after_s: 30}]}"});
  for (size_t p = 0; p < s.policies.size(); ++p) {
    analysis::PointResult r = RunPoint(s, PointSpec{p, 20, 1});
    EXPECT_EQ(r.replica_failures, 1u) << s.policies[p].name;
    EXPECT_GT(r.retried, 0u) << s.policies[p].name;
    EXPECT_EQ(r.failed, 0u) << s.policies[p].name;
    EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected + r.failed);
    EXPECT_EQ(analysis::PointToJson(r, s.slos),
              analysis::PointToJson(RunPoint(s, PointSpec{p, 20, 1}), s.slos));
  }
}

TEST(ClusterSimulationTest, WithoutRetriesAFailureLosesItsRequests) {
  Scenario s = Small({"failures={retry_limit: 0, schedule: [{replica: 2, at_s: 40}]}"});
  analysis::PointResult r = RunPoint(s, PointSpec{2, 20, 1});
  EXPECT_GT(r.failed, 0u);
  EXPECT_EQ(r.retried, 0u);
  EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected + r.failed);
  // The dead replica receives nothing after it failed: it got fewer requests
  // than the live ones (it served only the first 40 s after the 20 s warm-up).
  EXPECT_LT(r.replica_requests[2], r.replica_requests[0] / 2);
}

TEST(ClusterSimulationTest, WhenEveryReplicaIsDownArrivalsFail) {
  std::string all = "failures={schedule: [";
  for (int i = 0; i < 4; ++i)
    all += std::string(i ? "," : "") + "{replica: " + std::to_string(i) +
           ", at_s: 50, recover_after_s: 10}";
  Scenario s = Small({all + "]}"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  EXPECT_GT(r.failed, 100u);  // ~200 arrivals in the 10 s outage, plus work in flight
  EXPECT_EQ(r.replica_failures, 4u);
  EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected + r.failed);
}

TEST(ClusterSimulationTest, FailureOfAnUnknownReplicaIsAScenarioError) {
  try {
    Small({"failures={schedule: [{replica: 9, at_s: 10}]}"});
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("failures.schedule[0].replica"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvroute::sim
