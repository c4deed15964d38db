// End-to-end: sweeps that run on several threads, stop part-way and resume,
// and the report read back from the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/hdf5_reader.h"
#include "analysis/point_codec.h"
#include "tests/e2e/cli_harness.h"

namespace kvroute::sim {
namespace {

// Per process: ctest runs each test in its own process, several at a time.
std::filesystem::path SweepDir() {
  return std::filesystem::temp_directory_path() / ("kvroute_sweep_e2e_" + std::to_string(getpid()));
}

std::string SweepPath(const std::string& name) {
  auto dir = SweepDir();
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".partial");
  return path;
}

// The quickstart cut short, with bisection and a baseline: 3 policies × 10
// loads × 2 seeds plus bisection points, a few seconds.
std::vector<std::string> Small(const std::string& out, std::vector<std::string> more = {}) {
  std::vector<std::string> args{"run",     "--quiet",
                                "--seeds", "2",
                                "--set",   "duration_s=50",
                                "--set",   "warmup_s=10",
                                "--set",   "drain_s=20",
                                "--set",   "sweep.precision_qps=10",
                                "--set",   "sweep.baseline=flat_lb",
                                "--out",   out};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Every point as its exact record, in file order.
std::vector<std::string> PointRecords(const std::string& path) {
  std::vector<std::string> records;
  for (const analysis::PointResult& p : analysis::ReadResultsHdf5(path).results.points) {
    records.push_back(analysis::EncodePoint(p));
  }
  return records;
}

std::string Tables(const std::string& out) {
  return out.substr(0, out.find("\nwrote "));  // the last line has timings
}

class SweepCliTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    reference_ = new std::string(SweepPath("reference.h5"));
    Outcome o = Cli(Small(*reference_, {"--jobs", "1"}));
    ASSERT_EQ(o.status, 0) << o.err;
    tables_ = new std::string(Tables(o.out));
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(SweepDir()); }
  static std::string* reference_;
  static std::string* tables_;
};
std::string* SweepCliTest::reference_ = nullptr;
std::string* SweepCliTest::tables_ = nullptr;

TEST_F(SweepCliTest, TwoJobsWriteTheSamePointsAsOne) {
  std::string path = SweepPath("two_jobs.h5");
  Outcome o = Cli(Small(path, {"--jobs", "2"}));
  ASSERT_EQ(o.status, 0) << o.err;
  std::vector<std::string> one = PointRecords(*reference_), two = PointRecords(path);
  EXPECT_GT(one.size(), 3u * 6 * 2);  // bisection added points
  EXPECT_EQ(one, two);
  EXPECT_EQ(Tables(o.out), *tables_);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(SweepCliTest, StoppedAndResumedEqualsUninterrupted) {
  std::string path = SweepPath("resumed.h5");
  Outcome stopped = Cli(Small(path, {"--jobs", "2", "--stop-after", "7"}));
  EXPECT_EQ(stopped.status, 1);
  EXPECT_NE(stopped.err.find("--stop-after"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(std::filesystem::exists(path + ".partial"));

  Outcome resumed = Cli(Small(path, {"--jobs", "2", "--resume"}));
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("7 points resumed"), std::string::npos) << resumed.out;
  EXPECT_EQ(PointRecords(path), PointRecords(*reference_));
  EXPECT_EQ(Tables(resumed.out), *tables_);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(SweepCliTest, ResumeRefusesAChangedScenario) {
  std::string path = SweepPath("changed.h5");
  ASSERT_EQ(Cli(Small(path, {"--stop-after", "2", "--jobs", "1"})).status, 1);
  auto before = std::filesystem::file_size(path + ".partial");
  Outcome o = Cli(Small(path, {"--resume", "--set", "workload.keys=100"}));
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find(path + ".partial: written for a different scenario"), std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(std::filesystem::file_size(path + ".partial"), before);
  // Another policy subset is another scenario too.
  EXPECT_EQ(Cli(Small(path, {"--resume", "--policies", "flat_lb,sticky"})).status, 1);
}

TEST_F(SweepCliTest, ReportPrintsTheRunsTablesAndCsv) {
  Outcome text = Cli({"report", *reference_});
  ASSERT_EQ(text.status, 0) << text.err;
  // The run's tables, after the line naming the file.
  std::string run_tables = tables_->substr(tables_->find('\n'));
  EXPECT_NE(text.out.find(run_tables), std::string::npos) << text.out;

  Outcome csv = Cli({"report", *reference_, "--format", "csv"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  size_t columns = std::count(header.begin(), header.end(), ',') + 1;
  EXPECT_EQ(header.rfind("slo,policy,seeds,uncensored_seeds,capacity_mean_qps", 0), 0u);
  int rows = 0;
  std::regex number(R"(-?[0-9.e+-]+|inf|)");
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), ',') + 1, static_cast<long>(columns)) << line;
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    EXPECT_TRUE(std::regex_match(cells[4], number)) << line;
  }
  EXPECT_EQ(rows, 3 * 2);  // policies × SLOs

  Outcome md = Cli({"report", *reference_, "--format", "md"});
  ASSERT_EQ(md.status, 0);
  EXPECT_NE(md.out.find("| cacheroute | "), std::string::npos);
}

void ExpectPng(const std::filesystem::path& png) {
  ASSERT_TRUE(std::filesystem::exists(png)) << png;
  EXPECT_GT(std::filesystem::file_size(png), 1000u) << png;
  std::ifstream in(png, std::ios::binary);
  char magic[4];
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG") << png;
}

TEST_F(SweepCliTest, ReportDrawsNonEmptyPlots) {
  if (!std::filesystem::exists("/usr/bin/python3") && !std::getenv("KVROUTE_PYTHON")) {
    GTEST_SKIP() << "no python3 for the plots";
  }
  auto dir = SweepDir() / "plots";
  std::filesystem::remove_all(dir);
  Outcome o = Cli({"report", *reference_, "--plots", dir.string()});
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* name : {"slo_vs_load.png", "hit_rate_vs_load.png", "capacity.png",
                           "replica_load.png", "hit_rate_over_time.png", "queue_over_time.png"}) {
    ExpectPng(dir / name);
  }
  // One deployment: no deployment share to draw.
  EXPECT_FALSE(std::filesystem::exists(dir / "deployment_share_over_time.png"));
  EXPECT_EQ(Cli({"report", *reference_, "--plot-qps", "20"}).status, 2);  // needs --plots
  Outcome missing = Cli({"report", *reference_, "--plots", dir.string(), "--plot-qps", "7"});
  // A load the file lacks is a usage error, found before Python runs.
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--plot-qps: the file has no points at 7 QPS (its loads: 40, "),
            std::string::npos)
      << missing.err;
}

// A canary rollout with a replica failure: the deployment shares over time
// are drawn too, at the load asked for.
TEST(ReportCliTest, DrawsTheDeploymentShareOfACanary) {
  if (!std::filesystem::exists("/usr/bin/python3") && !std::getenv("KVROUTE_PYTHON")) {
    GTEST_SKIP() << "no python3 for the plots";
  }
  std::string out = SweepPath("canary.h5");
  Outcome run = Cli({"run", "scenarios/canary.yaml", "--quiet", "--out", out, "--set",
                     "sweep.qps=[20, 40]", "--set", "duration_s=160", "--set",
                     "failures={schedule: [{replica: 0, at_s: 100, recover_after_s: 20}]}"});
  ASSERT_EQ(run.status, 0) << run.err;
  auto dir = SweepDir() / "canary_plots";
  std::filesystem::remove_all(dir);
  Outcome o = Cli({"report", out, "--plots", dir.string(), "--plot-qps", "40"});
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* name :
       {"hit_rate_over_time.png", "queue_over_time.png", "deployment_share_over_time.png",
        "replicas_over_time.png"}) {  // the failure changes the serving count
    ExpectPng(dir / name);
  }
}

TEST(ReportCliTest, AMissingOrForeignFileIsAnErrorNamingIt) {
  Outcome missing = Cli({"report", "no-such-file.h5"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no-such-file.h5"), std::string::npos);
  Outcome foreign = Cli({"report", "scenarios/quickstart.yaml"});
  EXPECT_EQ(foreign.status, 1);
  EXPECT_NE(foreign.err.find("scenarios/quickstart.yaml"), std::string::npos);
  EXPECT_EQ(Cli({"report", "x.h5", "--format", "pdf"}).status, 2);
}

}  // namespace
}  // namespace kvroute::sim
