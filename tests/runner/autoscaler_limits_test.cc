// HPA's rate policies (sim/runner/autoscaler.h) by value, and the TTFT
// signal: the scaler's decision equals ceil(requested x quantile / target)
// for the quantile of the TTFTs the requests themselves record.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/request_record.h"
#include "sim/runner/autoscaler.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/request_log.h"

namespace kvroute::sim {
namespace {

using Type = ScalingPolicy::Type;

// Driven by requests waiting per serving replica against a target of 1, with
// no stabilisation: only the rate policies hold the count back.
AutoscaleSpec Unstabilised() {
  AutoscaleSpec a;
  a.signal = AutoscaleSpec::Signal::kWaiting;
  a.target = 1;
  a.min_replicas = 1;
  a.initial_replicas = 1;
  a.scale_down_stabilization_s = 0;
  return a;
}

// HPA's defaults: up by 4 pods or 100% per 15 s, whichever is more.
TEST(AutoscalerLimitsTest, DefaultScaleUpIsFourPodsOrDoublingPerFifteenSeconds) {
  Autoscaler scaler(Unstabilised(), 100);
  EXPECT_EQ(scaler.Decide(15, 1, 100.0), 5u);   // max(1 + 4, ceil(1 x 2))
  EXPECT_EQ(scaler.Decide(20, 5, 100.0), 5u);   // the period (5, 20] started at 1
  EXPECT_EQ(scaler.Decide(30, 5, 100.0), 10u);  // (15, 30] excludes t=15: max(5 + 4, 10)
  EXPECT_EQ(scaler.Decide(45, 10, 100.0), 20u);
  EXPECT_EQ(scaler.Decide(60, 20, 100.0), 40u);
}

TEST(AutoscalerLimitsTest, SelectMinTakesTheTightestPolicy) {
  AutoscaleSpec a = Unstabilised();
  a.initial_replicas = 10;
  a.scale_up_select = ScalingSelect::kMin;
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(15, 10, 100.0), 14u);  // min(10 + 4, 20)
}

TEST(AutoscalerLimitsTest, PercentIsRoundedUpGoingUpAndDownGoingDown) {
  AutoscaleSpec a = Unstabilised();
  a.scale_up_policies = {{Type::kPercent, 10, 60}};
  a.scale_down_policies = {{Type::kPercent, 30, 60}};
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(0, 3, 100.0), 4u);  // ceil(3 x 1.1) = 4, not 3
  Autoscaler down(a, 100);
  EXPECT_EQ(down.Decide(0, 7, 0.0), 4u);  // trunc(7 x 0.7) = 4
}

// One pod down per minute: the changes made in the sliding period count.
TEST(AutoscalerLimitsTest, ScaleDownByOnePodPerMinute) {
  AutoscaleSpec a = Unstabilised();
  a.scale_down_policies = {{Type::kPods, 1, 60}};
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(0, 8, 0.0), 7u);
  EXPECT_EQ(scaler.Decide(30, 7, 0.0), 7u);  // the period (-30, 30] started at 8
  EXPECT_EQ(scaler.Decide(59, 7, 0.0), 7u);
  EXPECT_EQ(scaler.Decide(60, 7, 0.0), 6u);  // (0, 60] excludes t=0
}

TEST(AutoscalerLimitsTest, DisabledDirectionNeverMoves) {
  AutoscaleSpec a = Unstabilised();
  a.initial_replicas = 4;
  a.scale_down_select = ScalingSelect::kDisabled;
  Autoscaler scaler(a, 100);
  EXPECT_EQ(scaler.Decide(15, 4, 0.0), 4u);
  EXPECT_EQ(scaler.Decide(30, 4, 2.0), 8u);  // up is still allowed
  a.scale_up_select = ScalingSelect::kDisabled;
  Autoscaler frozen(a, 100);
  EXPECT_EQ(frozen.Decide(15, 4, 100.0), 4u);
}

// A scaler on the p90 of TTFT over 100 s, deciding once, at 100 s. Its
// decision must be ceil(2 x p90 / target), with p90 the nearest-rank
// quantile of the TTFTs of the first tokens in (0, 100 s] as the requests
// record them.
Scenario OnTtft(double target_s) {
  return LoadScenarioText(R"(name: ttft_scaled
seed: 3
duration_s: 150
warmup_s: 0
drain_s: 60
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - name: main
      replicas: 4
      autoscale:
        signal: ttft
        quantile: 0.9
        window_s: 100
        interval_s: 100
        tolerance: 0
        target: )" + std::to_string(target_s) +
                              R"(
        initial_replicas: 2
        provisioning_delay_s: 10
workload:
  keys: 50
  prompt: {system_tokens: 256, new_tokens: 1024}
  output_tokens: 32
policies: [least_loaded]
sweep: {qps: [12]}
slo: [{metric: ttft, percentile: 99, threshold_s: 5}]
)",
                          "ttft_scaled");
}

uint32_t RequestedAt(const analysis::PointResult& r, double at_s) {
  uint32_t requested = 0;
  for (const analysis::FleetChange& c : r.fleet_changes) {
    if (c.at_s <= at_s + 1e-9) requested = c.requested;
  }
  return requested;
}

TEST(AutoscalerLimitsTest, TtftSignalIsTheWindowsQuantileOverTheTarget) {
  for (double target : {0.05, 0.2, 5.0}) {
    const Scenario s = OnTtft(target);
    Records records;
    const analysis::PointResult r = RunPoint(s, PointSpec{0, 12, s.seed}, &records);
    std::vector<double> ttfts;
    for (const analysis::RequestRecord& q : records.all) {
      if (q.first_token != kNever && q.first_token <= FromSeconds(100)) {
        ttfts.push_back(ToSeconds(q.first_token - q.arrival));
      }
    }
    ASSERT_GT(ttfts.size(), 100u);
    std::sort(ttfts.begin(), ttfts.end());
    const double p90 = ttfts[static_cast<size_t>(std::ceil(0.9 * ttfts.size())) - 1];
    const uint32_t expected =
        std::clamp<uint32_t>(static_cast<uint32_t>(std::ceil(2 * p90 / target)), 1, 4);
    EXPECT_EQ(RequestedAt(r, 100), expected) << "target " << target << " p90 " << p90;
  }
}

TEST(AutoscalerLimitsTest, BadRatePoliciesAreRefused) {
  const std::string head = R"(name: bad
duration_s: 10
warmup_s: 0
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - name: main
      replicas: 4
      autoscale:
        target: 1
        provisioning_delay_s: 0
)";
  const std::string tail = R"(
workload: {keys: 4, prompt: {system_tokens: 16, new_tokens: 16}, output_tokens: 4}
policies: [least_loaded]
sweep: {qps: [1]}
slo: [{metric: ttft, percentile: 99, threshold_s: 5}]
)";
  auto error = [&](const std::string& line) {
    try {
      LoadScenarioText(head + "        " + line + tail, "bad.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("scale_up_policies: []").find("non-empty list"), std::string::npos);
  EXPECT_NE(
      error("scale_up_policies: [{type: pods, value: 1.5, period_s: 15}]").find("whole number"),
      std::string::npos);
  EXPECT_NE(error("scale_down_policies: [{type: pod, value: 1, period_s: 15}]").find("type"),
            std::string::npos);
  EXPECT_NE(error("scale_down_policies: [{type: pods, value: 1}]").find("period_s"),
            std::string::npos);
  EXPECT_NE(error("scale_up_select: most").find("scale_up_select"), std::string::npos);
  EXPECT_NE(error("quantile: 0.5").find("signal: ttft"), std::string::npos);
  EXPECT_EQ(error("scale_down_policies: [{type: pods, value: 1, period_s: 60}]"), "accepted");
}

}  // namespace
}  // namespace kvroute::sim
