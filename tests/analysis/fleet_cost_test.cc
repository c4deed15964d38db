#include "analysis/fleet_cost.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kvroute::analysis {
namespace {

// 6 replicas of a TP2 profile on GPUs at $3.348 an hour (models/gpus/h100-sxm.yaml).
const FleetCost kSixTp2{.replicas = 6, .gpus_per_replica = 2, .usd_per_gpu_hour = 3.348};

TEST(FleetCost, GpusAreReplicasTimesTensorParallelism) { EXPECT_EQ(kSixTp2.Gpus(), 12u); }

TEST(FleetCost, DollarsPerHourByHand) {
  // 12 GPUs x $3.348 = $40.176 an hour.
  EXPECT_NEAR(kSixTp2.UsdPerHour(), 40.176, 1e-12);
}

TEST(FleetCost, GpuHoursAndDollarsOverASpan) {
  // 12 GPUs for 30 minutes: 6 GPU-hours, $20.088.
  EXPECT_NEAR(kSixTp2.GpuHours(1800), 6.0, 1e-12);
  EXPECT_NEAR(kSixTp2.Usd(1800), 20.088, 1e-12);
}

TEST(FleetCost, DollarsPerMillionTokens) {
  // $40.176 an hour at 10,000 tokens/s: 36 M tokens an hour, $1.116 per million.
  EXPECT_NEAR(kSixTp2.UsdPerMillionTokens(10'000), 1.116, 1e-12);
  EXPECT_TRUE(std::isnan(kSixTp2.UsdPerMillionTokens(0)));
}

TEST(FleetCost, UnknownPriceGivesNoDollars) {
  const FleetCost unpriced{.replicas = 4, .gpus_per_replica = 1, .usd_per_gpu_hour = 0};
  EXPECT_EQ(unpriced.Gpus(), 4u);
  EXPECT_NEAR(unpriced.GpuHours(3600), 4.0, 1e-12);
  EXPECT_TRUE(std::isnan(unpriced.UsdPerHour()));
  EXPECT_TRUE(std::isnan(unpriced.Usd(3600)));
}

}  // namespace
}  // namespace kvroute::analysis
