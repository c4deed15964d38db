// The work estimate is close enough to what a point does to guard against
// mistakes of orders of magnitude, and names the key that drives the cost.
#include "sim/runner/work_estimate.h"

#include <gtest/gtest.h>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

Scenario Quickstart(const std::vector<std::string>& overrides = {}) {
  std::vector<std::string> all{"duration_s=60", "warmup_s=10", "drain_s=30"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return LoadScenarioFile("scenarios/quickstart.yaml", all);
}

TEST(WorkEstimateTest, IsWithinASmallFactorOfAPointsRequestsAndEvents) {
  const Scenario s = Quickstart();
  for (double qps : {40.0, 120.0}) {
    const WorkEstimate e = EstimatePointWork(s, qps);
    const analysis::PointResult p = RunPoint(s, PointSpec{2, qps, 1});
    EXPECT_NEAR(e.requests, static_cast<double>(p.offered), 0.05 * e.requests) << qps;
    EXPECT_GT(e.events, 0.5 * static_cast<double>(p.events)) << qps;
    EXPECT_LT(e.events, 20.0 * static_cast<double>(p.events)) << qps;
  }
}

TEST(WorkEstimateTest, TheLoadScheduleScalesTheRequests) {
  const Scenario flat = Quickstart();
  const Scenario doubled = Quickstart({"workload.load_schedule=[{until_s: 30, factor: 3}]"});
  // Three times the load for the first half, then the last factor holds: 3x overall.
  EXPECT_NEAR(EstimatePointWork(doubled, 50).requests, 3 * EstimatePointWork(flat, 50).requests,
              1e-6 * EstimatePointWork(flat, 50).requests);
}

TEST(WorkEstimateTest, ALoadFarTooHighIsRefusedNamingTheGrid) {
  const Scenario s = Quickstart({"sweep.qps=[1e12]", "sweep.reference_qps=1e12"});
  const WorkEstimate e = EstimatePointWork(s);
  EXPECT_EQ(e.CostliestInEvents().key, "sweep.qps");
  try {
    CheckWorkLimits(s, e, 1);
    FAIL();
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("key 'sweep.qps': a point would take"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(CheckWorkLimits(Quickstart(), EstimatePointWork(Quickstart()), 2));
}

TEST(WorkEstimateTest, VirtualNodesDriveTheMemory) {
  const Scenario s = Quickstart({"policies=[{name: sticky, virtual_nodes: 1e9}]"});
  const WorkEstimate e = EstimatePointWork(s);
  EXPECT_EQ(e.CostliestInMemory().key, "policies[0].virtual_nodes");
  EXPECT_GE(e.bytes, 1e9 * 8 * 16);
}

TEST(WorkEstimateTest, FastPollingAndFineDriftAreNamed) {
  EXPECT_EQ(
      EstimatePointWork(Quickstart({"cluster.signal_refresh_s=1e-9"})).CostliestInEvents().key,
      "cluster.signal_refresh_s");
  EXPECT_EQ(EstimatePointWork(Quickstart({"workload.drift={sigma: 0.3, interval_s: 0.001}",
                                          "workload.keys=1000000"}))
                .CostliestInEvents()
                .key,
            "workload.drift.interval_s");
}

TEST(WorkEstimateTest, HugeSessionsNameTheirLength) {
  const Scenario s =
      Quickstart({"workload.sessions={turns: 40, think_time_s: 1}",
                  "workload.output_tokens={kind: uniform, min: 900000, max: 1000000}",
                  "sweep.qps=[1]", "sweep.reference_qps=1"});
  EXPECT_EQ(EstimatePointWork(s).CostliestInEvents().key, "workload.sessions");
}

TEST(WorkEstimateTest, AvailableMemoryIsReadOnLinux) {
  const std::optional<double> bytes = AvailableMemoryBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 1e6);
}

}  // namespace
}  // namespace kvroute::sim
