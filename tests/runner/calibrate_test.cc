#include "sim/runner/calibrate.h"

#include <gtest/gtest.h>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

Scenario Small() {
  return LoadScenarioText(R"(name: small
seed: 3
duration_s: 200
warmup_s: 20
drain_s: 30
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 4}]
workload:
  keys: 50
  prompt: {system_tokens: 1024, new_tokens: 256}
  output_tokens: 64
policies: [flat_lb]
sweep: {qps: [10]}
slo: [{metric: ttft, percentile: 99, threshold_s: 1}]
)",
                          "small");
}

// q_cap brackets the single-replica knee: it passes, the bracket's upper end
// fails, and they are within 2% of each other.
TEST(CalibrateTest, QCapIsTheSingleReplicaKnee) {
  Scenario s = Small();
  CalibrationReport r = Calibrate(s, 0);
  ASSERT_GT(r.q_cap, 0);
  EXPECT_LE(r.first_failing - r.q_cap, 0.02 * r.first_failing);
  Scenario single = s;
  single.deployments = {DeploymentSpec{"one", 1, 1}};
  single.policies = {PolicySpec{"round_robin", "round_robin", {}, ""}};
  EXPECT_TRUE(s.slos[0].Met(RunPoint(single, PointSpec{0, r.q_cap, s.seed}).slo_values[0]));
  EXPECT_FALSE(
      s.slos[0].Met(RunPoint(single, PointSpec{0, r.first_failing, s.seed}).slo_values[0]));
}

TEST(CalibrateTest, SlotsAreTheRoomBesideTheWorkingSetInPrefixes) {
  CalibrationReport r = Calibrate(Small(), 0);
  EXPECT_EQ(r.prefix_blocks_per_key, 64);
  EXPECT_GT(r.working_set_blocks, 0);
  EXPECT_LT(r.working_set_blocks, r.kv_blocks);
  EXPECT_EQ(r.slots_per_replica, (r.kv_blocks - r.working_set_blocks) / 64);
  EXPECT_EQ(r.derivation.size(), 3u);
}

}  // namespace
}  // namespace kvroute::sim
