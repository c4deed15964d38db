// The sweep driver on a synthetic model: bisection rounds and resumed points,
// without simulating a cluster.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "analysis/partial_file.h"
#include "analysis/point_codec.h"
#include "sim/runner/experiment.h"
#include "sim/runner/point_executor.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

// A monotone model: the SLO metric is load / 100 seconds, so an SLO of
// threshold T is met exactly up to 100·T QPS.
class MonotoneModel : public PointExecutor {
 public:
  void Run(const Scenario& scenario, std::span<const PointSpec> specs,
           const PointResultFn& on_result) override {
    for (size_t i = 0; i < specs.size(); ++i) {
      analysis::PointResult p;
      p.policy = scenario.policies[specs[i].policy_index].name;
      p.qps = specs[i].qps;
      p.seed = specs[i].seed;
      p.slo_values.assign(scenario.slos.size(), specs[i].qps / 100);
      ++ran;
      on_result(i, p);
    }
  }
  unsigned workers() const override { return 1; }
  size_t ran = 0;
};

Scenario Synthetic(double precision) {
  Scenario s;
  s.name = "synthetic";
  s.seeds = 2;
  s.policies = {PolicySpec{"a", "a", {}, ""}, PolicySpec{"b", "b", {}, ""}};
  s.qps = {10, 20, 40, 80, 160};
  s.reference_qps = 40;
  s.slos = {analysis::Slo{analysis::LatencyMetric::kTtft, 99, 0.737},
            analysis::Slo{analysis::LatencyMetric::kTtft, 99, 5}};  // above the grid
  s.precision_qps = precision;
  return s;
}

TEST(BisectionTest, FindsAKnownThresholdToThePrecision) {
  MonotoneModel model;
  analysis::SweepResults r = RunSweep(Synthetic(0.5), model, {});
  for (const analysis::CapacityRow& c : r.capacity) {
    if (c.slo_index == 0) {
      EXPECT_LE(c.capacity.qps, 73.7);
      EXPECT_GT(c.capacity.qps, 73.7 - 0.5);
      EXPECT_FALSE(c.capacity.left_censored || c.capacity.right_censored);
    } else {
      EXPECT_EQ(c.capacity.qps, 160);  // censored: not refined
      EXPECT_TRUE(c.capacity.right_censored);
    }
  }
  // 40..80 halves to 0.5 QPS in 7 rounds, for each of 2 policies × 2 seeds.
  EXPECT_EQ(r.points.size(), 20u + 4 * 7);
  EXPECT_EQ(r.points.back().refinement_round, 7u);
  EXPECT_EQ(r.points.front().refinement_round, 0u);
}

// 40..80 toward 73.7: 60, 70, 75, 72.5, 73.75; the bracket [72.5, 73.75] is
// 1.25 QPS wide, within 2% of 72.5 (1.45), so five rounds. With 3 QPS as
// well, the wider of the two stops it a round earlier, at [72.5, 75].
TEST(BisectionTest, ARelativePrecisionStopsWithinItsShare) {
  for (auto [qps, rounds] : {std::pair{0.0, 5u}, std::pair{3.0, 4u}}) {
    Scenario s = Synthetic(qps);
    s.precision_share = 0.02;
    MonotoneModel model;
    analysis::SweepResults r = RunSweep(s, model, {});
    EXPECT_EQ(r.points.size(), 20u + 4 * rounds) << qps;
    EXPECT_EQ(r.points.back().refinement_round, rounds) << qps;
    for (const analysis::CapacityRow& c : r.capacity) {
      if (c.slo_index != 0) continue;
      EXPECT_DOUBLE_EQ(c.capacity.qps, 72.5) << qps;
      EXPECT_DOUBLE_EQ(c.capacity.upper_qps, rounds == 5 ? 73.75 : 75) << qps;
    }
    for (const analysis::SummaryRow& row : r.summary) {
      if (row.slo_index == 0) {
        EXPECT_FALSE(row.quantised) << qps;
      }
    }
  }
}

TEST(BisectionTest, GridOnlyWithoutAPrecision) {
  MonotoneModel model;
  analysis::SweepResults r = RunSweep(Synthetic(0), model, {});
  EXPECT_EQ(r.points.size(), 20u);
  EXPECT_EQ(r.capacity.front().capacity.qps, 40);
}

TEST(SweepTest, ResumedPointsAreNotRunAgainAndGiveTheSameResults) {
  MonotoneModel full_model;
  analysis::SweepResults full = RunSweep(Synthetic(0.5), full_model, {});
  SweepOptions resumed;
  resumed.finished.assign(full.points.begin(), full.points.begin() + 25);
  MonotoneModel rest_model;
  analysis::SweepResults rest = RunSweep(Synthetic(0.5), rest_model, resumed);
  EXPECT_EQ(rest_model.ran, full.points.size() - 25);
  ASSERT_EQ(rest.points.size(), full.points.size());
  for (size_t i = 0; i < full.points.size(); ++i) {
    EXPECT_EQ(analysis::EncodePoint(rest.points[i]), analysis::EncodePoint(full.points[i]));
  }
}

TEST(SweepTest, ScenarioHashChangesWithWhatIsRun) {
  Scenario s = Synthetic(0);
  s.yaml = "name: synthetic\n";
  std::string hash = ScenarioHash(s);
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(ScenarioHash(s), hash);
  Scenario more_seeds = s;
  more_seeds.seeds = 3;
  EXPECT_NE(ScenarioHash(more_seeds), hash);
  Scenario other_yaml = s;
  other_yaml.yaml = "name: synthetic\nduration_s: 61\n";
  EXPECT_NE(ScenarioHash(other_yaml), hash);
}

// Points run on two threads while the calling thread records each as it
// finishes, in a partial file and a progress count, as `kvroute run` does:
// the same results as on one thread. CI's ThreadSanitizer build runs this
// (with PointPoolTest) to catch races between the pool and the recorder.
TEST(ThreadedSweepTest, TwoThreadsRecordTheSameSweepAsOne) {
  Scenario s = LoadScenarioText(
      QuickstartYaml(), "quickstart",
      {"duration_s=12", "warmup_s=2", "drain_s=5", "sweep.qps=[40, 200]", "sweep.reference_qps=40",
       "seeds=2", "sweep.precision_qps=20", "slo=[{threshold_s: 0.5}]"});
  auto sweep = [&](unsigned jobs) {
    std::string path =
        (std::filesystem::temp_directory_path() /
         ("kvroute_threaded_" + std::to_string(getpid()) + "_" + std::to_string(jobs) + ".partial"))
            .string();
    analysis::PartialFile partial = analysis::PartialFile::Create(path, ScenarioHash(s), s.yaml);
    size_t recorded = 0;
    SweepOptions options;
    options.on_point = [&](size_t done, size_t, const analysis::PointResult& p) {
      partial.Append(p);
      recorded = done;
    };
    ThreadExecutor executor(jobs);
    analysis::SweepResults r = RunSweep(s, executor, options);
    EXPECT_EQ(recorded, r.points.size());
    EXPECT_EQ(partial.size(), r.points.size());
    partial.Remove();
    return r;
  };
  analysis::SweepResults one = sweep(1), two = sweep(2);
  ASSERT_EQ(one.points.size(), two.points.size());
  EXPECT_GT(one.points.size(), 3u * 2 * 2);  // bisection ran
  for (size_t i = 0; i < one.points.size(); ++i) {
    EXPECT_EQ(analysis::EncodePoint(two.points[i]), analysis::EncodePoint(one.points[i])) << i;
  }
}

}  // namespace
}  // namespace kvroute::sim
