#include "models/arrival_process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>

#include "models/workload.h"

namespace kvroute::models {
namespace {

struct GapMoments {
  double mean = 0, cv = 0, lag1 = 0;
};

GapMoments Measure(const std::vector<double>& x) {
  GapMoments m;
  double n = static_cast<double>(x.size());
  m.mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double var = 0, cov = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    var += (x[i] - m.mean) * (x[i] - m.mean);
    if (i > 0) cov += (x[i] - m.mean) * (x[i - 1] - m.mean);
  }
  m.cv = std::sqrt(var / n) / m.mean;
  m.lag1 = cov / var;
  return m;
}

// 200k gamma gaps with CV 1.9 (shape 0.277): the sample CV's relative standard
// error is about 0.6% (excess kurtosis 6/shape), so 5% is a wide margin.
TEST(ArrivalProcessTest, GammaHasTheConfiguredCv) {
  ArrivalConfig c;
  c.kind = ArrivalConfig::Kind::kGamma;
  c.cv = 1.9;
  ArrivalProcess p(c, sim::RandomStream(3, "test.gamma"));
  std::vector<double> gaps(200000);
  for (double& g : gaps) g = p.NextGap();
  GapMoments m = Measure(gaps);
  EXPECT_NEAR(m.mean, 1.0, 0.02);
  EXPECT_NEAR(m.cv, 1.9, 0.05 * 1.9);
}

// An input with short-range correlation: exp of an AR(1) series (phi 0.7).
std::vector<double> CorrelatedGaps(size_t n) {
  sim::RandomStream rng(9, "test.ar1");
  std::vector<double> gaps(n);
  double x = 0;
  for (double& g : gaps) {
    x = 0.7 * x + std::sqrt(1 - 0.49) * rng.Normal();
    g = 0.05 * std::exp(0.8 * x);
  }
  return gaps;
}

// A block bootstrap with blocks of 50 keeps lag-1 pairs except at the 1 in 50
// block seams, so its lag-1 autocorrelation is about 0.98 of the input's
// (input ~0.6); the bounds allow that and sampling error (sd ~0.01 over 400k
// gaps in 8,000 blocks). The mean is the input's rescaled to 1, within 2%.
TEST(ArrivalProcessTest, BootstrapKeepsMeanAndLagOneCorrelation) {
  std::vector<double> input = CorrelatedGaps(20000);
  GapMoments in = Measure(input);
  ArrivalConfig c;
  c.kind = ArrivalConfig::Kind::kBootstrap;
  c.gaps = input;
  c.block = 50;
  ArrivalProcess p(c, sim::RandomStream(4, "test.bootstrap"));
  std::vector<double> out(400000);
  for (double& g : out) g = p.NextGap();
  GapMoments m = Measure(out);
  EXPECT_NEAR(m.mean, 1.0, 0.02);
  EXPECT_GT(in.lag1, 0.4);
  EXPECT_NEAR(m.lag1, in.lag1, 0.05);
  EXPECT_NEAR(m.cv, in.cv, 0.05 * in.cv);
  // A plain iid resample would lose the correlation: the check has teeth.
  ArrivalConfig iid = c;
  iid.block = 1;
  ArrivalProcess q(iid, sim::RandomStream(4, "test.bootstrap"));
  for (double& g : out) g = q.NextGap();
  EXPECT_LT(std::abs(Measure(out).lag1), 0.02);
}

TEST(ArrivalProcessTest, GapsFileErrorsNameTheLine) {
  std::string path = ::testing::TempDir() + "/gaps.txt";
  std::ofstream(path) << "# gaps\n0.5\n\n1.5x\n";
  try {
    ReadGapsFile(path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("gaps.txt:4:"), std::string::npos) << e.what();
  }
}

TEST(ArrivalProcessTest, LoadScheduleWarpsTime) {
  LoadSchedule s({{.until_s = 10, .factor = 0.5}, {.until_s = 20, .factor = 2}});
  EXPECT_DOUBLE_EQ(s.Warp(2.5), 5);  // half load: 2.5 s of work take 5 s
  EXPECT_DOUBLE_EQ(s.Warp(5), 10);   // the first step ends
  EXPECT_DOUBLE_EQ(s.Warp(15), 15);  // 10 more at double load take 5 s
  EXPECT_DOUBLE_EQ(s.Warp(27), 21);  // the last factor holds after its step
}

// Drift (seed 003 §5.6): the log of each key's request count changes between
// intervals by the drift step plus Poisson noise (var 1/c0 + 1/c1 ~ 0.0005).
// Over 200 keys the sample sd has a standard error of about 0.015.
TEST(ArrivalProcessTest, DriftStepsHaveTheConfiguredSigma) {
  WorkloadConfig c;
  c.keys = 200;
  c.rates.zipf_s = 0;
  c.system_tokens = 0;
  c.new_tokens = LengthDistribution::Fixed(1);
  c.drift = {.sigma = 0.3, .interval_s = 100};
  WorkloadGenerator g(c, 11, 10000, sim::FromSeconds(200));
  std::vector<double> first(c.keys, 0), second(c.keys, 0);
  Request r;
  while (g.Next(&r)) ++(r.arrival < sim::FromSeconds(100) ? first : second)[r.key];
  std::vector<double> steps;
  for (uint32_t k = 0; k < c.keys; ++k) steps.push_back(std::log(second[k] / first[k]));
  double mean = std::accumulate(steps.begin(), steps.end(), 0.0) / steps.size();
  double var = 0;
  for (double s : steps) var += (s - mean) * (s - mean);
  EXPECT_NEAR(std::sqrt(var / (steps.size() - 1)), 0.3, 0.05);
}

// KeyLoadAt walks the drift path the keys are drawn from: in the third
// interval each key's request count is Poisson with the true rate x 100 s
// (mean 50,000 over 20 keys: within 4.5 sd each), and the load schedule's
// factor multiplies it.
TEST(ArrivalProcessTest, KeyLoadAtIsTheDriftedRateRequestsFollow) {
  WorkloadConfig c;
  c.keys = 20;
  c.system_tokens = 0;
  c.new_tokens = LengthDistribution::Fixed(1);
  c.drift = {.sigma = 0.8, .interval_s = 100};
  c.load_schedule = {{.until_s = 150, .factor = 2}, {.until_s = 400, .factor = 1}};
  WorkloadGenerator g(c, 5, 500, sim::FromSeconds(300));
  std::vector<double> counts(c.keys, 0);
  Request r;
  while (g.Next(&r)) {
    if (r.arrival >= sim::FromSeconds(200)) ++counts[r.key];
  }
  std::vector<double> load;
  g.KeyLoadAt(sim::FromSeconds(250), &load);
  double total = 0;
  for (uint32_t k = 0; k < c.keys; ++k) {
    double expected = load[k] * 500 * 100;
    EXPECT_NEAR(counts[k], expected, 4.5 * std::sqrt(expected) + 1) << k;
    total += load[k];
  }
  EXPECT_NEAR(total, 1, 1e-12);  // factor 1 after 150 s
  // The drift moved the rates: the shares differ from the configured ones.
  EXPECT_GT(std::abs(load[0] - g.key_shares()[0]), 0.01);
  // Before the first step: the configured shares, at twice the load; asked
  // again after a later time, the same values.
  std::vector<double> start;
  g.KeyLoadAt(0, &start);
  for (uint32_t k = 0; k < c.keys; ++k) EXPECT_NEAR(start[k], 2 * g.key_shares()[k], 1e-12);
  std::vector<double> again;
  g.KeyLoadAt(sim::FromSeconds(250), &again);
  EXPECT_EQ(again, load);
}

}  // namespace
}  // namespace kvroute::models
