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
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

TEST(ClusterSimulationTest, SamePointTwiceIsBitIdentical) {
  Scenario s = SmallCluster();
  for (size_t p = 0; p < s.policies.size(); ++p) {
    PointSpec spec{p, 20, 3};
    EXPECT_EQ(analysis::PointToJson(RunPoint(s, spec), s.slos),
              analysis::PointToJson(RunPoint(s, spec), s.slos))
        << s.policies[p].name;
  }
}

// Preble prices decoding with the TPOTs it measures from the first-token and
// completion callbacks: one sample per replica replaces the 1000 s seed.
TEST(ClusterSimulationTest, PolicyHearsFirstTokensAndCompletions) {
  Scenario s = SmallCluster(
      {"policies=[{name: preble, tpot_samples: 1, initial_tpot_s: 1000}]", "duration_s=60"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  double tpot = -1;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "preble_mean_tpot_s") tpot = value;
  }
  EXPECT_GT(tpot, 0);
  EXPECT_LT(tpot, 1);
}

// Every registered policy runs in the simulation, side by side, deterministically.
TEST(ClusterSimulationTest, EveryRegisteredPolicyRunsDeterministically) {
  std::string list;
  for (const policies::PolicyInfo& info : policies::PolicyTable()) {
    list += (list.empty() ? "" : ", ") + info.name;
  }
  Scenario s = SmallCluster({"policies=[" + list + "]", "duration_s=60"});
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
    Scenario s = SmallCluster({"policies=[{name: least_loaded, measure: tokens}]",
                               "cluster.signal_refresh_s=" + refresh});
    return RunPoint(s, PointSpec{0, 20, 1});
  };
  analysis::PointResult live = run("0"), stale = run("5");
  Scenario s = SmallCluster({"policies=[{name: least_loaded, measure: tokens}]"});
  EXPECT_EQ(analysis::PointToJson(live, s.slos),
            analysis::PointToJson(RunPoint(s, PointSpec{0, 20, 1}), s.slos));
  EXPECT_GT(stale.imbalance, live.imbalance);
}

// With workload.tenants the tracked tenants are the busiest tenants, not the
// busiest keys: keys 2-5 carry the most traffic (0.4, 0.203, 0.162, 0.135),
// but there are two tenants, 0 (keys 0, 2, 4: 0.612 of the traffic) and 1
// (keys 1, 3, 5: 0.388), and every request counts for its own.
TEST(ClusterSimulationTest, TracksTheBusiestTenantsNotKeys) {
  Scenario s = SmallCluster({"workload.keys=6", "workload.tenants=2",
                             "workload.whales=[0.05, 0.05, 0.4]", "policies=[round_robin]"});
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
  Scenario s = SmallCluster({"duration_s=40", "warmup_s=10", "drain_s=20"});
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
  Scenario s = SmallCluster();
  for (double qps : {10.0, 400.0}) {  // comfortable, and far past capacity
    for (size_t p = 0; p < s.policies.size(); ++p) {
      analysis::PointResult r = RunPoint(s, PointSpec{p, qps, 1});
      EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected)
          << s.policies[p].name << " " << qps;
      EXPECT_GT(r.offered, 0u);
    }
  }
}

// DualMap moves queued requests between replicas (Policy::Rebalance). With a
// TTFT SLO tight enough for its hotspots to form at 100 req/s, requests are
// moved, and each still completes exactly once, deterministically.
TEST(ClusterSimulationTest, QueueMovesServeEveryRequestOnce) {
  Scenario s = SmallCluster({"policies=[{name: dualmap, ttft_slo_s: 0.05}]"});
  Scenario off = SmallCluster({"policies=[{name: dualmap, ttft_slo_s: 0.05, rebalance: off}]"});
  auto stat = [](const analysis::PointResult& r, const std::string& name) {
    for (const auto& [n, v] : r.policy_stats) {
      if (n == name) return v;
    }
    return -1.0;
  };
  analysis::PointResult moved = RunPoint(s, PointSpec{0, 100, 1});
  analysis::PointResult kept = RunPoint(off, PointSpec{0, 100, 1});
  EXPECT_GT(stat(moved, "dualmap_rebalance_moves"), 10);
  EXPECT_EQ(stat(kept, "dualmap_rebalance_moves"), 0);
  for (const analysis::PointResult& r : {moved, kept}) {
    EXPECT_EQ(r.offered, r.completed);
    EXPECT_EQ(r.unfinished + r.rejected + r.failed, 0u);
  }
  EXPECT_EQ(analysis::PointToJson(moved, s.slos),
            analysis::PointToJson(RunPoint(s, PointSpec{0, 100, 1}), s.slos));
}

TEST(ClusterSimulationTest, OverloadLeavesWorkUnfinishedAndFailsTheSlo) {
  Scenario s = SmallCluster();
  analysis::PointResult r = RunPoint(s, PointSpec{2, 400, 1});
  EXPECT_GT(r.unfinished, 0u);
  EXPECT_FALSE(s.slos[0].Met(r.slo_values[0]));
}

TEST(ClusterSimulationTest, AllPoliciesSeeTheSameRequests) {
  Scenario s = SmallCluster();
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
  Scenario s = SmallCluster({"cluster.kv_blocks=4000"});
  analysis::PointResult flat = RunPoint(s, PointSpec{2, 20, 1});
  analysis::PointResult sticky = RunPoint(s, PointSpec{3, 20, 1});
  analysis::PointResult planned = RunPoint(s, PointSpec{4, 20, 1});
  EXPECT_GT(sticky.token_hit_rate, flat.token_hit_rate + 0.05);
  EXPECT_GT(planned.token_hit_rate, flat.token_hit_rate + 0.05);
  EXPECT_GT(flat.cache_evictions, sticky.cache_evictions);
}

// cacheroute rates: workload gets the drifting workload's true rates from the
// simulation, and plans from them at every tick: other plans than from the
// measured rates, the same ones on every run.
TEST(ClusterSimulationTest, CacheRouteCanPlanFromTheWorkloadsTrueRates) {
  std::vector<std::string> drift = {"workload.drift={sigma: 1.0, interval_s: 30}"};
  auto stats = [&](const char* rates) {
    std::vector<std::string> o = drift;
    o.push_back(std::string("policies=[{name: cacheroute, q_cap: 10, slots_per_replica: 10, "
                            "interval_s: 30, rates: ") +
                rates + "}]");
    Scenario s = SmallCluster(o);
    analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
    EXPECT_EQ(analysis::PointToJson(r, s.slos),
              analysis::PointToJson(RunPoint(s, {0, 20, 1}), s.slos));
    return r.policy_stats;
  };
  auto measured = stats("measured"), told = stats("workload");
  auto get = [](const auto& v, const std::string& name) {
    for (const auto& [k, x] : v) {
      if (k == name) return x;
    }
    ADD_FAILURE() << name;
    return 0.0;
  };
  EXPECT_GE(get(told, "plan_rebuilds"), 4);  // ticks at 30, 60, 90 s at least
  EXPECT_NE(told, measured);
}

TEST(ClusterSimulationTest, StickyConcentratesLoadAndFlatLbSpreadsIt) {
  Scenario s = SmallCluster();
  analysis::PointResult flat = RunPoint(s, PointSpec{2, 20, 1});
  analysis::PointResult sticky = RunPoint(s, PointSpec{3, 20, 1});
  EXPECT_LT(flat.imbalance, 1.1);
  EXPECT_GT(sticky.imbalance, flat.imbalance);
}

TEST(ClusterSimulationTest, CacheRouteRebuildsEveryInterval) {
  Scenario s = SmallCluster();
  analysis::PointResult r = RunPoint(s, PointSpec{4, 20, 1});
  double rebuilds = 0;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "plan_rebuilds") rebuilds = value;
  }
  EXPECT_EQ(rebuilds, 4);  // the initial plan, then ticks at 30, 60 and 90 s
}

// The time series adds up to the point's totals: arrivals, completions, and
// the measured hit rate over the buckets after the warm-up (20 s, two buckets).
TEST(ClusterSimulationTest, TimeSeriesAddsUpToThePointsTotals) {
  Scenario s = SmallCluster();
  for (size_t p = 0; p < s.policies.size(); ++p) {
    analysis::PointResult r = RunPoint(s, PointSpec{p, 20, 1});
    uint64_t arrived = 0, completed = 0, prompt = 0, hit = 0;
    for (size_t b = 0; b < r.series.size(); ++b) {
      const analysis::SeriesSample& x = r.series[b];
      EXPECT_EQ(x.start_s, 10.0 * static_cast<double>(b));
      arrived += x.arrived;
      completed += x.completed;
      if (x.start_s >= 20) prompt += x.prompt_tokens, hit += x.hit_tokens;
      EXPECT_GE(static_cast<double>(x.max_waiting), x.mean_waiting);
      EXPECT_GE(x.kv_utilization, 0);
      EXPECT_LE(x.kv_utilization, 1);
    }
    EXPECT_EQ(arrived, r.offered) << s.policies[p].name;
    EXPECT_EQ(completed, r.completed) << s.policies[p].name;
    EXPECT_EQ(static_cast<double>(hit) / static_cast<double>(prompt), r.token_hit_rate);
    // Arrivals stop at 120 s; the run lasts until the last completion.
    EXPECT_EQ(r.series.size(), static_cast<size_t>(std::floor(r.simulated_s / 10)) + 1);
    EXPECT_EQ(r.series[12].arrived, 0u);
  }
}

// Overload: the queues grow bucket after bucket while requests arrive.
TEST(ClusterSimulationTest, TimeSeriesShowsQueuesGrowingUnderOverload) {
  Scenario s = SmallCluster();
  analysis::PointResult r = RunPoint(s, PointSpec{0, 400, 1});
  EXPECT_LT(r.series[2].mean_waiting, r.series[6].mean_waiting);
  EXPECT_LT(r.series[6].mean_waiting, r.series[11].mean_waiting);
  EXPECT_GT(r.series[11].max_waiting, 100u);
  analysis::PointResult light = RunPoint(s, PointSpec{0, 1, 1});
  EXPECT_LT(light.series[6].mean_waiting, 0.5);
}

// Two deployments of 4 replicas, equal weights. Deployment `a` names its own
// policy, sticky; `b` runs the point's, round robin.
Scenario TwoPolicies(const std::string& a_policy) {
  return SmallCluster({"cluster.deployments=[{name: a, replicas: 4, policy: " + a_policy +
                           "}, {name: b, replicas: 4}]",
                       "policies=[round_robin]"});
}

TEST(ClusterSimulationTest, ADeploymentRunsItsOwnPolicy) {
  analysis::PointResult r = RunPoint(TwoPolicies("sticky"), PointSpec{0, 20, 1});
  ASSERT_EQ(r.replica_requests.size(), 8u);
  auto spread = [&](size_t from) {
    auto [lo, hi] = std::minmax_element(r.replica_requests.begin() + from,
                                        r.replica_requests.begin() + from + 4);
    return *hi - *lo;
  };
  // Round robin deals b's requests in turn: counts differ by at most one.
  EXPECT_LE(spread(4), 1u);
  // Sticky sends each key to its hashed replica: Zipf keys leave a uneven.
  EXPECT_GT(spread(0), 50u);
  EXPECT_EQ(r.policy, "round_robin");  // the point keeps the sweep's policy name

  // The same deployment without its own policy runs the point's.
  analysis::PointResult plain =
      RunPoint(SmallCluster({"cluster.deployments=[{name: a, replicas: 4}, {name: b, replicas: 4}]",
                             "policies=[round_robin]"}),
               PointSpec{0, 20, 1});
  auto [lo, hi] =
      std::minmax_element(plain.replica_requests.begin(), plain.replica_requests.begin() + 4);
  EXPECT_LE(*hi - *lo, 1u);
}

// Its parameters are checked like the scenario's policies, errors at their place.
TEST(ClusterSimulationTest, ADeploymentPolicyWithParametersAndErrors) {
  Scenario s = TwoPolicies("{name: cacheroute, q_cap: 5, slots_per_replica: 20}");
  ASSERT_TRUE(s.deployments[0].policy.has_value());
  EXPECT_EQ(s.deployments[0].policy->name, "cacheroute");
  EXPECT_FALSE(s.deployments[1].policy.has_value());
  analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  bool planned = false;
  for (const auto& [name, value] : r.policy_stats) planned |= name == "a.plan_rebuilds";
  EXPECT_TRUE(planned);
  for (auto [bad, where] : {std::pair{"nope", "cluster.deployments[0].policy.name"},
                            {"{name: cacheroute, q_cup: 5}", "'q_cup'"}}) {
    try {
      TwoPolicies(bad);
      FAIL() << bad;
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kvroute::sim
