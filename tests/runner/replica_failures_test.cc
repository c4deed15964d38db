// Replica failures in a simulated cluster (failures.schedule): requests retried
// elsewhere or lost, arrivals failing while every replica is down, the time
// series' failure and recovery counts, and a schedule naming no replica.
#include <gtest/gtest.h>

#include <string>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

// A replica fails at 40 s and comes back cold 30 s later: its requests are
// retried elsewhere, nothing is lost, and the run stays deterministic.
TEST(ReplicaFailuresTest, FailedReplicaRequestsAreRetriedElsewhere) {
  Scenario s = SmallCluster(
      {"failures={retry_limit: 1, schedule: [{replica: 1, at_s: 40, recover_after_s: 30}]}"});
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

// A policy that counts a request from routing (preble) is told of every
// request that will not reach its queue: here, requests in the H100's serving
// front end when their replica fails, lost without retry. What it still
// counts at the end is exactly what is unfinished.
TEST(ReplicaFailuresTest, RequestsLostBeforeTheirQueueLeaveThePolicysCount) {
  std::string failures = "failures={retry_limit: 0, schedule: [";
  for (int i = 0; i < 8; ++i) {
    failures += (i > 0 ? ", " : "") + std::string("{replica: ") + std::to_string(i % 4) +
                ", at_s: " + std::to_string(5 + 3 * i) + ", recover_after_s: 2}";
  }
  Scenario s = SmallCluster({failures + "]}", "policies=[preble]", "duration_s=30"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 300, 1});
  EXPECT_EQ(r.replica_failures, 8u);
  EXPECT_GT(r.failed, 0u);
  double tracked = -1;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "preble_tracked_requests") tracked = value;
  }
  EXPECT_EQ(tracked, static_cast<double>(r.unfinished));
}

TEST(ReplicaFailuresTest, WithoutRetriesAFailureLosesItsRequests) {
  Scenario s = SmallCluster({"failures={retry_limit: 0, schedule: [{replica: 2, at_s: 40}]}"});
  analysis::PointResult r = RunPoint(s, PointSpec{2, 20, 1});
  EXPECT_GT(r.failed, 0u);
  EXPECT_EQ(r.retried, 0u);
  EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected + r.failed);
  // The dead replica receives nothing after it failed: it got fewer requests
  // than the live ones (it served only the first 40 s after the 20 s warm-up).
  EXPECT_LT(r.replica_requests[2], r.replica_requests[0] / 2);
}

TEST(ReplicaFailuresTest, WhenEveryReplicaIsDownArrivalsFail) {
  std::string all = "failures={schedule: [";
  for (int i = 0; i < 4; ++i)
    all += std::string(i ? "," : "") + "{replica: " + std::to_string(i) +
           ", at_s: 50, recover_after_s: 10}";
  Scenario s = SmallCluster({all + "]}"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  EXPECT_GT(r.failed, 100u);  // ~200 arrivals in the 10 s outage, plus work in flight
  EXPECT_EQ(r.replica_failures, 4u);
  EXPECT_EQ(r.offered, r.completed + r.unfinished + r.rejected + r.failed);
}

// A failure at 40 s and its recovery at 70 s land in buckets 4 and 7; while
// three replicas carry the load of four, their queues are longer.
TEST(ReplicaFailuresTest, TimeSeriesRecordsFailuresAndRecoveries) {
  Scenario s = SmallCluster({"failures={schedule: [{replica: 1, at_s: 40, recover_after_s: 30}]}"});
  analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  for (size_t b = 0; b < r.series.size(); ++b) {
    EXPECT_EQ(r.series[b].failures, b == 4 ? 1u : 0u) << b;
    EXPECT_EQ(r.series[b].recoveries, b == 7 ? 1u : 0u) << b;
  }
}

TEST(ReplicaFailuresTest, FailureOfAnUnknownReplicaIsAScenarioError) {
  try {
    SmallCluster({"failures={schedule: [{replica: 9, at_s: 10}]}"});
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("failures.schedule[0].replica"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvroute::sim
