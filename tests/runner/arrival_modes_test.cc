// Closed-loop clients, load stages and the serving front end, end to end
// through the cluster simulation (sim/runner/arrival_driver.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "analysis/request_record.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/request_log.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

Scenario OneReplica() {
  return LoadTestScenario({.name = "arrivals",
                           .workload = R"(  keys: 20
  prompt: {system_tokens: 256, new_tokens: {kind: uniform, min: 16, max: 256}}
  output_tokens: {kind: uniform, min: 1, max: 64}
)",
                           .qps = 5});
}

Records Simulate(const Scenario& s) {
  Records records;
  RunPoint(s, PointSpec{0, 5, 1}, &records);
  return records;
}

TEST(ClosedLoopTest, KeepsExactlyNRequestsInFlight) {
  Scenario s = OneReplica();
  s.workload.closed_loop.clients = 6;
  Records r = Simulate(s);
  ASSERT_GT(r.all.size(), 60u);
  // +1 at each arrival, -1 at each completion; a completion and the arrival it
  // releases share an instant.
  std::map<Time, int> change;
  for (const auto& rec : r.all) {
    ASSERT_EQ(rec.outcome, analysis::RequestRecord::Outcome::kCompleted);
    ++change[rec.arrival];
    --change[rec.completed];
  }
  int in_flight = 0;
  const Time end = FromSeconds(s.duration_s);
  for (const auto& [t, delta] : change) {
    in_flight += delta;
    if (t < end) {
      EXPECT_EQ(in_flight, 6) << "at " << ToSeconds(t) << " s";
    }
  }
  EXPECT_EQ(in_flight, 0);
}

TEST(ClosedLoopTest, ThinkTimeSeparatesAClientsRequests) {
  Scenario s = OneReplica();
  s.workload.closed_loop.clients = 1;
  s.workload.closed_loop.think_time_s = models::LengthDistribution::Fixed(2.5);
  Records r = Simulate(s);
  ASSERT_GT(r.all.size(), 3u);
  std::sort(r.all.begin(), r.all.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; });
  EXPECT_EQ(r.all[0].arrival, 0);
  for (size_t i = 1; i < r.all.size(); ++i) {
    EXPECT_EQ(r.all[i].arrival - r.all[i - 1].completed, FromSeconds(2.5));
    EXPECT_EQ(r.all[i].client, 0u);
  }
}

TEST(ClosedLoopTest, StopsAtItsRequestBudget) {
  Scenario s = OneReplica();
  s.workload.closed_loop.clients = 4;
  s.workload.closed_loop.max_requests = 30;
  EXPECT_EQ(Simulate(s).all.size(), 30u);
}

// inference-perf's staged load: exactly each stage's count, the next stage
// only once the previous one has drained, plus the gap.
TEST(LoadStagesTest, EachStageSendsItsCountAfterThePreviousDrained) {
  Scenario s = OneReplica();
  s.workload.stages = {{4, 10, 40}, {8, 5, 0}};
  s.workload.stage_gap_s = 2;
  Records r = Simulate(s);
  std::vector<analysis::RequestRecord> stage[2];
  for (const auto& rec : r.all) stage[rec.stage].push_back(rec);
  ASSERT_EQ(stage[0].size(), 40u);
  ASSERT_EQ(stage[1].size(), 40u);  // 8 QPS × 5 s
  Time drained = 0, first0 = kNever, first1 = kNever, last0 = 0;
  for (const auto& rec : stage[0]) {
    drained = std::max(drained, rec.completed);
    first0 = std::min(first0, rec.arrival);
    last0 = std::max(last0, rec.arrival);
  }
  for (const auto& rec : stage[1]) first1 = std::min(first1, rec.arrival);
  // The gaps are rescaled to the duration: the last request at its end.
  EXPECT_EQ(last0, FromSeconds(10));
  EXPECT_GT(first0, 0);
  EXPECT_GT(first1, drained + FromSeconds(2));
  EXPECT_LT(first1, drained + FromSeconds(2 + 5));
}

TEST(FrontendTest, TtftAndE2eIncludeTheFrontEnd) {
  Scenario s = OneReplica();
  s.workload.closed_loop.clients = 1;
  s.workload.closed_loop.max_requests = 1;
  s.resolved_profile.gpu.efficiency.frontend_latency_s = 0;
  const analysis::RequestRecord without = Simulate(s).all.at(0);
  s.resolved_profile.gpu.efficiency.frontend_latency_s = 0.05;
  const analysis::RequestRecord with = Simulate(s).all.at(0);
  EXPECT_EQ((with.first_token - with.arrival) - (without.first_token - without.arrival),
            FromSeconds(0.05));
  EXPECT_EQ((with.completed - with.arrival) - (without.completed - without.arrival),
            FromSeconds(0.05));
}

}  // namespace
}  // namespace kvroute::sim
