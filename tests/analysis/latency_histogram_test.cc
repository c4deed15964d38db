#include "analysis/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::analysis {
namespace {

TEST(LatencyHistogramTest, NearestRankPercentilesOfSmallSets) {
  LatencyHistogram h;
  for (int v : {5, 1, 4, 2, 3}) h.Record(v);  // ns: exact below 1024
  EXPECT_DOUBLE_EQ(h.PercentileSeconds(50), 3e-9);
  EXPECT_DOUBLE_EQ(h.PercentileSeconds(20), 1e-9);
  EXPECT_DOUBLE_EQ(h.PercentileSeconds(99), 5e-9);
  EXPECT_DOUBLE_EQ(h.MaxSeconds(), 5e-9);
}

// 99.9 × 1000 / 100 is 999.0000000000001 in floating point; the nearest rank
// is still 999.
TEST(LatencyHistogramTest, NearestRankIsExactForFractionalPercentiles) {
  LatencyHistogram h;
  for (int v = 1; v <= 1000; ++v) h.Record(v);
  EXPECT_DOUBLE_EQ(h.PercentileSeconds(99.9), 999e-9);
  EXPECT_DOUBLE_EQ(h.PercentileSeconds(50), 500e-9);
}

TEST(LatencyHistogramTest, PercentilesAreWithinATenthOfAPercent) {
  LatencyHistogram h;
  sim::RandomStream rng(1, "test.histogram");
  std::vector<sim::Time> values;
  for (int i = 0; i < 50000; ++i) {
    sim::Time v = sim::FromSeconds(rng.Exponential(2.0));
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    size_t rank = static_cast<size_t>(std::llround(p * 500));  // p% of 50000, exactly
    double exact = sim::ToSeconds(values[rank - 1]);
    EXPECT_NEAR(h.PercentileSeconds(p), exact, exact * 1e-3) << "p" << p;
  }
  EXPECT_DOUBLE_EQ(h.MaxSeconds(), sim::ToSeconds(values.back()));
}

TEST(LatencyHistogramTest, CensoredValuesRankAboveEverything) {
  LatencyHistogram h;
  for (int i = 0; i < 98; ++i) h.Record(sim::FromSeconds(1));
  h.RecordCensored();
  h.RecordCensored();
  EXPECT_NEAR(h.PercentileSeconds(98), 1.0, 1e-3);
  EXPECT_TRUE(std::isinf(h.PercentileSeconds(99)));
  EXPECT_TRUE(std::isinf(h.MaxSeconds()));
  EXPECT_EQ(h.count(), 100u);
}

TEST(LatencyHistogramTest, EmptyHasNoPercentile) {
  LatencyHistogram h;
  EXPECT_TRUE(std::isnan(h.PercentileSeconds(99)));
}

}  // namespace
}  // namespace kvroute::analysis
