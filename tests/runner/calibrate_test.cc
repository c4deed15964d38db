#include "sim/runner/calibrate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

// Each seed's q_cap brackets that seed's single-replica knee: it passes, the
// bracket's upper end fails, and they are within 2% of each other.
TEST(CalibrateTest, QCapIsEachSeedsSingleReplicaKnee) {
  Scenario s = Small();
  s.seeds = 2;
  CalibrationReport r = Calibrate(s, 0);
  ASSERT_EQ(r.seeds.size(), 2u);
  Scenario single = s;
  single.deployments = {DeploymentSpec{"one", 1, 1}};
  single.policies = {PolicySpec{"round_robin", "round_robin", {}, ""}};
  for (const SeedCalibration& c : r.seeds) {
    ASSERT_GT(c.q_cap, 0);
    EXPECT_LE(c.first_failing - c.q_cap, 0.02 * c.first_failing);
    EXPECT_TRUE(s.slos[0].Met(RunPoint(single, PointSpec{0, c.q_cap, c.seed}).slo_values[0]));
    EXPECT_FALSE(
        s.slos[0].Met(RunPoint(single, PointSpec{0, c.first_failing, c.seed}).slo_values[0]));
  }
  EXPECT_EQ(r.seeds[0].seed, 3u);
  EXPECT_EQ(r.seeds[1].seed, 4u);
}

TEST(CalibrateTest, SlotsAreTheRoomBesideTheWorkingSetInPrefixes) {
  CalibrationReport r = Calibrate(Small(), 0);
  ASSERT_EQ(r.seeds.size(), 1u);
  const SeedCalibration& c = r.seeds[0];
  EXPECT_EQ(r.prefix_blocks_per_key, 64);
  EXPECT_GT(c.working_set_blocks, 0);
  EXPECT_LT(c.working_set_blocks, r.kv_blocks);
  EXPECT_EQ(c.slots_per_replica, (r.kv_blocks - c.working_set_blocks) / 64);
  EXPECT_EQ(r.slots_per_replica, c.slots_per_replica);
  EXPECT_EQ(r.q_cap, c.q_cap);
  EXPECT_EQ(r.derivation.size(), 2u);  // the seed's line and the median's
}

// q_cap and W are each the lower median of the seeds' values, taken apart:
// with four seeds, the second smallest of each.
TEST(CalibrateTest, TheLowerMedianOfEachOverTheSeeds) {
  Scenario s = Small();
  s.seeds = 4;
  CalibrationReport r = Calibrate(s, 0);
  ASSERT_EQ(r.seeds.size(), 4u);
  std::vector<double> caps;
  std::vector<uint32_t> slots;
  for (const SeedCalibration& c : r.seeds) {
    caps.push_back(c.q_cap);
    slots.push_back(c.slots_per_replica);
  }
  std::sort(caps.begin(), caps.end());
  std::sort(slots.begin(), slots.end());
  EXPECT_EQ(r.q_cap, caps[1]);
  EXPECT_EQ(r.slots_per_replica, slots[1]);
}

}  // namespace
}  // namespace kvroute::sim
