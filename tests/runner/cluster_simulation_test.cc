#include "sim/runner/cluster_simulation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "policies/registry.h"
#include "sim/runner/point_pool.h"
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

// With workload.tenants the tracked tenants are the busiest tenants, not the
// busiest keys: keys 2-5 carry the most traffic (0.4, 0.203, 0.162, 0.135),
// but there are two tenants, 0 (keys 0, 2, 4: 0.612 of the traffic) and 1
// (keys 1, 3, 5: 0.388), and every request counts for its own.
TEST(ClusterSimulationTest, TracksTheBusiestTenantsNotKeys) {
  Scenario s = Small({"workload.keys=6", "workload.tenants=2", "workload.whales=[0.05, 0.05, 0.4]",
                      "policies=[round_robin]"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 10, 1});
  ASSERT_EQ(r.tenants.size(), 3u);
  EXPECT_EQ(r.tenants[0].tenant, "0");
  EXPECT_EQ(r.tenants[1].tenant, "1");
  EXPECT_EQ(r.tenants[2].tenant, "other");
  EXPECT_EQ(r.tenants[2].measured, 0u);
  EXPECT_EQ(r.tenants[0].measured + r.tenants[1].measured, r.measured);
  ASSERT_GT(r.measured, 500u);
  double share = static_cast<double>(r.tenants[0].measured) / static_cast<double>(r.measured);
  EXPECT_NEAR(share, 0.612, 0.05);
  EXPECT_TRUE(std::isfinite(r.tenants[1].ttft_p99));
}

// Points submitted while others run come back under their own tags with the
// result RunPoint gives alone (the MPI ranks hand out points this way).
TEST(PointPoolTest, PointsSubmittedWhileOthersRunKeepTheirTags) {
  Scenario s = Small({"duration_s=40", "warmup_s=10", "drain_s=20"});
  const std::vector<PointSpec> specs = {{0, 10, 1}, {2, 20, 2}, {4, 15, 3}, {3, 10, 4}};
  std::map<size_t, std::string> got;
  {
    PointPool pool(s, 2);
    pool.Submit(7, specs[0]);
    pool.Submit(3, specs[1]);
    PointPool::Finished f;
    size_t submitted = 2;
    while (pool.pending() > 0) {
      if (!pool.Next(&f, std::chrono::milliseconds(100))) continue;
      ASSERT_FALSE(f.error);
      got[f.tag] = analysis::PointToJson(f.result, s.slos);
      if (submitted < specs.size()) {
        pool.Submit(10 + submitted, specs[submitted]);
        ++submitted;
      }
    }
  }
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[7], analysis::PointToJson(RunPoint(s, specs[0]), s.slos));
  EXPECT_EQ(got[3], analysis::PointToJson(RunPoint(s, specs[1]), s.slos));
  EXPECT_EQ(got[12], analysis::PointToJson(RunPoint(s, specs[2]), s.slos));
  EXPECT_EQ(got[13], analysis::PointToJson(RunPoint(s, specs[3]), s.slos));
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

namespace kvroute::sim {
namespace {

// scenarios/canary.yaml (seed 000): between 60 s and 150 s the weights are
// old:new = 1:9 at lambda_h = 10.
class CanaryTest : public ::testing::Test {
 protected:
  analysis::PointResult Run(const std::vector<std::string>& overrides = {}) {
    scenario_ = LoadScenarioFile("scenarios/canary.yaml", overrides);
    return RunPoint(scenario_, PointSpec{0, 60, 1});
  }
  // Sums `field` over the new deployment's buckets in [from_s, to_s).
  template <typename Field>
  uint64_t New(const analysis::PointResult& r, double from_s, double to_s, Field field) {
    uint64_t sum = 0;
    for (const analysis::DeploymentSample& s : r.deployment_series) {
      if (s.deployment == 1 && s.start_s >= from_s && s.start_s < to_s) sum += field(s);
    }
    return sum;
  }
  Scenario scenario_;
};

// A prompt wholly cached in the old deployment and not at all in the new one
// goes there with probability 9/(2^10 + 9): binomial, within 4 sigma.
TEST_F(CanaryTest, ColdDeploymentGetsTheSeedsShareOfHitPrompts) {
  analysis::PointResult r = Run();
  ASSERT_EQ(r.deployment_names, (std::vector<std::string>{"old", "new"}));
  auto n = New(r, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere; });
  auto taken = New(r, 60, 150, [](const auto& s) { return s.cold_hit_elsewhere_taken; });
  const double p = 9.0 / (1024 + 9), sigma = std::sqrt(n * p * (1 - p));
  ASSERT_GT(n, 1000u);
  EXPECT_NEAR(static_cast<double>(taken), n * p, 4 * sigma);
  // Before the shift the new deployment has weight 0; after 150 s it has all.
  EXPECT_EQ(New(r, 0, 60, [](const auto& s) { return s.requests; }), 0u);
  uint64_t late = New(r, 150, 240, [](const auto& s) { return s.requests; });
  EXPECT_EQ(late, New(r, 150, 240, [](const auto& s) { return s.hit_elsewhere_taken; }) +
                      (late - New(r, 150, 240, [](const auto& s) { return s.hit_elsewhere; })));
}

// Its share of prompts the old deployment holds starts low and rises as it warms.
TEST_F(CanaryTest, ShareOfHitPromptsRisesAsTheNewDeploymentWarms) {
  analysis::PointResult r = Run();
  auto share = [&](double from_s, double to_s) {
    return static_cast<double>(
               New(r, from_s, to_s, [](const auto& s) { return s.hit_elsewhere_taken; })) /
           static_cast<double>(New(r, from_s, to_s, [](const auto& s) { return s.hit_elsewhere; }));
  };
  EXPECT_LT(share(60, 70), 0.1);
  EXPECT_GT(share(120, 150), 3 * share(60, 70));
}

// lambda_h = 0: the plain weights, 9 of 10 requests to the new deployment.
TEST_F(CanaryTest, NoCachePreferenceFollowsTheWeights) {
  analysis::PointResult r = Run({"cluster.lambda_h=0"});
  uint64_t to_new = New(r, 60, 150, [](const auto& s) { return s.requests; });
  uint64_t all = to_new;
  for (const analysis::DeploymentSample& s : r.deployment_series) {
    if (s.deployment == 0 && s.start_s >= 60 && s.start_s < 150) all += s.requests;
  }
  const double sigma = std::sqrt(all * 0.9 * 0.1);
  EXPECT_NEAR(static_cast<double>(to_new), all * 0.9, 4 * sigma);
}

TEST_F(CanaryTest, BitIdenticalAcrossRuns) {
  analysis::PointResult a = Run(), b = Run();
  EXPECT_EQ(analysis::PointToJson(a, scenario_.slos), analysis::PointToJson(b, scenario_.slos));
}

}  // namespace
}  // namespace kvroute::sim
