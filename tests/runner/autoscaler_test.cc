// The autoscaler's decision rule (Kubernetes HPA's, sim/runner/autoscaler.h)
// by value, and replicas coming and going in a simulated cluster: a schedule
// gives exactly its counts at its times, a new replica serves only after the
// provisioning delay and starts with an empty cache, a removed one drains.
#include "sim/runner/autoscaler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analysis/request_record.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/request_log.h"

namespace kvroute::sim {
namespace {

AutoscaleSpec Hpa(double target) {
  AutoscaleSpec a;
  a.signal = AutoscaleSpec::Signal::kWaiting;
  a.target = target;
  a.min_replicas = 1;
  a.initial_replicas = 4;
  a.scale_down_stabilization_s = 0;
  return a;
}

TEST(AutoscalerTest, DesiredIsCeilOfRequestedTimesSignalOverTarget) {
  Autoscaler scaler(Hpa(3), 100);
  EXPECT_EQ(scaler.Decide(15, 4, 6.0), 8u);  // ratio 2
  EXPECT_EQ(scaler.Decide(30, 8, 1.0), 3u);  // ceil(8 / 3)
  EXPECT_EQ(scaler.Decide(45, 3, 3.9), 4u);  // ceil(3 x 1.3) = ceil(3.9)
}

TEST(AutoscalerTest, NoChangeWithinTheTolerance) {
  Autoscaler scaler(Hpa(3), 100);
  EXPECT_EQ(scaler.Decide(15, 4, 3.3), 4u);   // |1.1 - 1| = 0.1, within
  EXPECT_EQ(scaler.Decide(30, 4, 2.7), 4u);   // |0.9 - 1| = 0.1, within
  EXPECT_EQ(scaler.Decide(45, 4, 3.31), 5u);  // ceil(4 x 1.1033)
}

TEST(AutoscalerTest, ClampedToMinAndMax) {
  AutoscaleSpec a = Hpa(1);
  a.min_replicas = 2;
  Autoscaler scaler(a, 6);
  EXPECT_EQ(scaler.Decide(15, 4, 100.0), 6u);
  EXPECT_EQ(scaler.Decide(30, 6, 0.0), 2u);
}

TEST(AutoscalerTest, NoServingReplicaChangesNothing) {
  Autoscaler scaler(Hpa(1), 10);
  EXPECT_EQ(scaler.Decide(15, 3, std::nan("")), 3u);
}

// replica_calculator.go, calcPlainMetricReplicas: replicas still starting are
// left out of the average and read as 0 on a scale-up, so the recommendation
// is ceil(ready x signal / target), not ceil(requested x ...), and a scale-up
// they already cover changes nothing.
TEST(AutoscalerTest, ReplicasStillStartingDoNotMultiplyTheSignal) {
  Autoscaler scaler(Hpa(2), 100);
  EXPECT_EQ(scaler.Decide(15, 8, 2, 8.0), 8u);    // ceil(2 x 4) = 8, not ceil(8 x 4) = 32
  EXPECT_EQ(scaler.Decide(30, 8, 2, 10.0), 10u);  // ceil(2 x 5)
  EXPECT_EQ(scaler.Decide(45, 10, 4, 4.4), 10u);  // over all 10: 4 x 2.2 / 10 = 0.88, covered
  EXPECT_EQ(scaler.Decide(60, 10, 4, 6.0), 12u);  // 4 x 3 / 10 = 1.2: ceil(4 x 3)
}

TEST(AutoscalerTest, AScaleDownLeavesReplicasStillStartingOut) {
  Autoscaler scaler(Hpa(2), 100);
  EXPECT_EQ(scaler.Decide(15, 8, 4, 1.0), 2u);  // ceil(4 x 0.5)
}

// GetExternalMetricReplicas: the TTFT quantile is one value for the
// deployment, scaled by the ready replicas without rebalancing.
TEST(AutoscalerTest, TheTtftSignalScalesTheReadyReplicas) {
  AutoscaleSpec a = Hpa(1.0);
  a.signal = AutoscaleSpec::Signal::kTtft;
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(15, 6, 3, 2.5), 8u);  // ceil(3 x 2.5)
  EXPECT_EQ(scaler.Decide(30, 8, 3, 2.0), 6u);  // ceil(3 x 2): below the 8 asked for
  EXPECT_EQ(scaler.Decide(45, 6, 0, 9.0), 6u);  // no ready replica: no change
}

// HPA's scale-down stabilisation: the count comes down only to the most
// recommendation of the last 300 s.
TEST(AutoscalerTest, ScaleDownWaitsForTheStabilisationWindow) {
  AutoscaleSpec a = Hpa(1);
  a.scale_down_stabilization_s = 300;
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(0, 4, 2.0), 8u);    // up at once (up window 0)
  EXPECT_EQ(scaler.Decide(15, 8, 0.25), 8u);  // recommends 2; 8 is in the window
  EXPECT_EQ(scaler.Decide(299, 8, 0.25), 8u);
  EXPECT_EQ(scaler.Decide(300, 8, 0.25), 2u);  // the 8 of t=0 is out of (0, 300]
}

TEST(AutoscalerTest, ScaleUpStabilisationTakesTheLeastRecommendation) {
  AutoscaleSpec a = Hpa(1);
  a.scale_up_stabilization_s = 60;
  // Rate policies loose enough not to bind (autoscaler_limits_test.cc has them).
  a.scale_up_policies = {{ScalingPolicy::Type::kPercent, 1000, 15}};
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(0, 4, 1.0), 4u);   // recommends 4
  EXPECT_EQ(scaler.Decide(15, 4, 3.0), 4u);  // recommends 12; 4 is in the window
  EXPECT_EQ(scaler.Decide(30, 4, 3.0), 4u);
  EXPECT_EQ(scaler.Decide(61, 4, 3.0), 12u);  // only 12s left in (1, 61]
}

TEST(AutoscalerTest, ScheduleGivesItsCountAtEachTime) {
  AutoscaleSpec a;
  a.signal = AutoscaleSpec::Signal::kSchedule;
  a.initial_replicas = 2;
  a.schedule = {{60, 4}, {120, 1}};
  Autoscaler scaler(a, 8);
  EXPECT_EQ(scaler.Scheduled(0), 2u);
  EXPECT_EQ(scaler.Scheduled(59.9), 2u);
  EXPECT_EQ(scaler.Scheduled(60), 4u);
  EXPECT_EQ(scaler.Scheduled(500), 1u);
}

// Four replicas at most; two serve from the start; the schedule asks for four
// at 60 s, two at 120 s and four again at 180 s; a new replica serves 30 s
// after it is asked for.
Scenario Scheduled() {
  return LoadScenarioText(R"(name: scaled
seed: 5
duration_s: 260
warmup_s: 10
drain_s: 60
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - name: main
      replicas: 4
      autoscale:
        signal: schedule
        initial_replicas: 2
        provisioning_delay_s: 30
        schedule: [{at_s: 60, replicas: 4}, {at_s: 120, replicas: 2}, {at_s: 180, replicas: 4}]
workload:
  keys: 200
  prompt: {system_tokens: 512, new_tokens: 64}
  output_tokens: 16
policies: [least_loaded]
sweep: {qps: [20]}
slo: [{metric: ttft, percentile: 99, threshold_s: 5}]
)",
                          "scaled");
}

TEST(FleetScalingTest, ScheduleGivesExactCountsAtItsTimesAfterTheDelay) {
  const Scenario s = Scheduled();
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  // (time, requested, serving); replicas finish draining at times the engine decides.
  std::vector<std::tuple<double, uint32_t, uint32_t>> changes;
  for (const analysis::FleetChange& c : r.fleet_changes) {
    // Seconds from the integer-nanosecond clock, to the millisecond.
    changes.emplace_back(std::round(c.at_s * 1000) / 1000, c.requested, c.serving);
  }
  using C = std::tuple<double, uint32_t, uint32_t>;
  std::vector<C> expected{{0, 2, 2},   {60, 4, 2},  {90, 4, 3},  {90, 4, 4},
                          {120, 2, 2}, {180, 4, 2}, {210, 4, 3}, {210, 4, 4}};
  std::vector<C> without_drains;
  for (size_t i = 0; i < changes.size(); ++i) {
    // A drain's end logs the same requested and serving counts at a later time.
    if (i > 0 && std::get<1>(changes[i]) == std::get<1>(changes[i - 1]) &&
        std::get<2>(changes[i]) == std::get<2>(changes[i - 1])) {
      continue;
    }
    without_drains.push_back(changes[i]);
  }
  EXPECT_EQ(without_drains, expected);
}

TEST(FleetScalingTest, NewReplicasServeOnlyAfterTheDelayAndStartCold) {
  const Scenario s = Scheduled();
  Records records;
  RunPoint(s, PointSpec{0, 20, s.seed}, &records);
  bool served_late = false;
  for (uint32_t replica : {2u, 3u}) {
    // The first request each scaled-up replica serves after each start.
    for (double start : {90.0, 210.0}) {
      const analysis::RequestRecord* first = nullptr;
      for (const analysis::RequestRecord& q : records.all) {
        if (q.replica != replica || q.arrival < FromSeconds(start - 30)) continue;
        if (first == nullptr || q.arrival < first->arrival) first = &q;
      }
      ASSERT_NE(first, nullptr) << replica << " at " << start;
      // Nothing reaches it between the decision and the end of provisioning...
      EXPECT_GE(first->arrival, FromSeconds(start) - FromSeconds(0.02)) << replica;
      // ...and its cache is empty: not even the shared system prompt hits.
      EXPECT_EQ(first->hit_tokens, 0u) << replica << " at " << start;
      served_late = true;
    }
  }
  EXPECT_TRUE(served_late);
  // Replicas 2 and 3 take nothing while off, before 60 s or in [120 s, 180 s)
  // once their drain is over (the engine front end adds a few ms).
  for (const analysis::RequestRecord& q : records.all) {
    if (q.replica < 2) continue;
    EXPECT_FALSE(q.arrival < FromSeconds(90)) << q.replica;
    EXPECT_FALSE(q.arrival >= FromSeconds(120.1) && q.arrival < FromSeconds(210)) << q.replica;
  }
}

// The point's time series carries the serving count (10 s buckets).
TEST(FleetScalingTest, TimeSeriesShowsTheServingReplicas) {
  const Scenario s = Scheduled();
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  auto serving_at = [&](double start_s) {
    for (const analysis::SeriesSample& b : r.series) {
      if (b.start_s == start_s) return b.serving_replicas;
    }
    return -1.0;
  };
  EXPECT_EQ(serving_at(50), 2);
  EXPECT_EQ(serving_at(70), 2);  // asked for 4 at 60 s, provisioning until 90 s
  EXPECT_EQ(serving_at(90), 4);
  EXPECT_EQ(serving_at(130), 2);
  EXPECT_EQ(serving_at(200), 2);
  EXPECT_EQ(serving_at(220), 4);
}

// Billed replicas and their cost per 10 s bucket: from the decision (not the
// end of provisioning) until a replica is off.
TEST(FleetScalingTest, TimeSeriesBillsEachBucketByHand) {
  const Scenario s = Scheduled();
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  auto bucket = [&](double start_s) {
    for (const analysis::SeriesSample& b : r.series) {
      if (b.start_s == start_s) return b;
    }
    ADD_FAILURE() << "no bucket at " << start_s;
    return analysis::SeriesSample{};
  };
  EXPECT_NEAR(bucket(50).billed_replicas, 2, 1e-9);
  EXPECT_NEAR(bucket(60).billed_replicas, 4, 1e-9);  // provisioning, billed
  EXPECT_NEAR(bucket(140).billed_replicas, 2, 1e-9);
  EXPECT_NEAR(bucket(190).billed_replicas, 4, 1e-9);
  // One H100 per replica at the catalogue's $3.348 per GPU-hour.
  EXPECT_NEAR(bucket(50).usd, 2 * 10 / 3600.0 * 3.348, 1e-12);
  // Every bucket equals the billed count of the change log, integrated: the
  // drains after 120 s included.
  for (const analysis::SeriesSample& b : r.series) {
    double replica_seconds = 0;
    for (size_t i = 0; i < r.fleet_changes.size(); ++i) {
      const double from = std::max(r.fleet_changes[i].at_s, b.start_s);
      const double to =
          std::min(i + 1 < r.fleet_changes.size() ? r.fleet_changes[i + 1].at_s : r.simulated_s,
                   b.start_s + 10);
      if (to > from) replica_seconds += r.fleet_changes[i].billed * (to - from);
    }
    const double spanned = std::min(10.0, r.simulated_s - b.start_s);
    EXPECT_NEAR(b.billed_replicas, replica_seconds / spanned, 1e-6) << b.start_s;
  }
}

// A fixed fleet bills all its replicas in every bucket, the last one counted
// over the time it spans.
TEST(FleetScalingTest, FixedFleetBillsEveryReplicaInEveryBucket) {
  Scenario s = Scheduled();
  s.deployments[0].autoscale.reset();
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  ASSERT_FALSE(r.series.empty());
  for (const analysis::SeriesSample& b : r.series) {
    EXPECT_NEAR(b.billed_replicas, 4, 1e-9) << b.start_s;
  }
}

// Failures in an autoscaled deployment: replica 0 fails while serving and
// takes nothing until it recovers; replica 3 fails while turned off and its
// recovery does not bring it back before the autoscaler does (at 210 s);
// every request is still counted.
TEST(FleetScalingTest, FailuresAndAutoscalingRunTogether) {
  Scenario s = Scheduled();
  s.failures = {{.replica = 0, .at_s = 70, .recover_after_s = 30},
                {.replica = 3, .at_s = 130, .recover_after_s = 20}};
  Records records;
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed}, &records);
  EXPECT_EQ(r.replica_failures, 2u);
  size_t on_three = 0;
  for (const analysis::RequestRecord& q : records.all) {
    if (q.replica == 0) {
      EXPECT_FALSE(q.arrival > FromSeconds(70.01) && q.arrival < FromSeconds(100)) << q.arrival;
    }
    if (q.replica == 3) {
      EXPECT_FALSE(q.arrival > FromSeconds(120.1) && q.arrival < FromSeconds(210)) << q.arrival;
      on_three += q.arrival >= FromSeconds(210);
    }
  }
  EXPECT_GT(on_three, 0u);  // it serves again once provisioned
  EXPECT_EQ(r.offered, r.completed + r.failed + r.rejected + r.unfinished);
}

TEST(FleetScalingTest, BilledReplicaHoursByHand) {
  const Scenario s = Scheduled();
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  double mean = -1, gpu_hours = -1, usd = -1, ups = -1;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "autoscale.main.mean_replicas") mean = value;
    if (name == "autoscale.main.gpu_hours") gpu_hours = value;
    if (name == "autoscale.main.usd") usd = value;
    if (name == "autoscale.main.scale_ups") ups = value;
  }
  // Over the measured window [10, 260): 2 replicas until 60, 4 from 60 to
  // 120 plus the drain of two, 2 until 180, then 4: at least
  // (50x2 + 60x4 + 60x2 + 80x4) / 250 = 3.12 and at most 0.5 s of drain more.
  EXPECT_GE(mean, 3.12 - 1e-9);
  EXPECT_LE(mean, 3.12 + 2 * 2.0 / 250);
  EXPECT_NEAR(gpu_hours, mean * 250 / 3600, 1e-9);
  EXPECT_NEAR(usd, gpu_hours * 3.348, 1e-9);
  EXPECT_EQ(ups, 4);
}

TEST(FleetScalingTest, Deterministic) {
  const Scenario s = Scheduled();
  const analysis::PointResult a = RunPoint(s, PointSpec{0, 20, s.seed});
  const analysis::PointResult b = RunPoint(s, PointSpec{0, 20, s.seed});
  ASSERT_EQ(a.fleet_changes.size(), b.fleet_changes.size());
  for (size_t i = 0; i < a.fleet_changes.size(); ++i) {
    EXPECT_EQ(a.fleet_changes[i].at_s, b.fleet_changes[i].at_s);
    EXPECT_EQ(a.fleet_changes[i].serving, b.fleet_changes[i].serving);
  }
  EXPECT_EQ(a.ttft.p99, b.ttft.p99);
  EXPECT_EQ(a.policy_stats, b.policy_stats);
}

// Driven by the queue: a burst far beyond two replicas brings the scaler to
// its maximum; HPA's 300 s window then holds it there.
TEST(FleetScalingTest, QueueSignalScalesUpUnderLoad) {
  const Scenario s = LoadScenarioText(R"(name: hpa
seed: 2
duration_s: 200
warmup_s: 10
drain_s: 60
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - name: main
      replicas: 6
      autoscale: {signal: waiting, target: 2, min_replicas: 1, initial_replicas: 1, provisioning_delay_s: 20}
workload:
  keys: 100
  prompt: {system_tokens: 256, new_tokens: 2048}
  output_tokens: 64
policies: [least_loaded]
sweep: {qps: [20]}
slo: [{metric: ttft, percentile: 99, threshold_s: 5}]
)",
                                      "hpa");
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, s.seed});
  ASSERT_FALSE(r.fleet_changes.empty());
  uint32_t most = 0;
  for (const analysis::FleetChange& c : r.fleet_changes) {
    EXPECT_LE(c.requested, 6u);
    EXPECT_GE(c.requested, 1u);
    // Decisions fall on the 15 s sync period; readiness 20 s after one.
    const double since_decision = std::fmod(c.at_s, 15.0);
    EXPECT_TRUE(since_decision < 1e-9 || std::abs(std::fmod(c.at_s - 20, 15.0)) < 1e-9 ||
                c.serving == c.requested)
        << c.at_s;
    most = std::max(most, c.requested);
  }
  EXPECT_EQ(most, 6u);
}

}  // namespace
}  // namespace kvroute::sim
