// End-to-end: the kvroute command line on the built-in quickstart, as README
// tells a user to run it.
#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "analysis/atomic_file.h"
#include "analysis/hdf5_reader.h"
#include "tests/e2e/cli_harness.h"

namespace kvroute::sim {
namespace {

// Per process: other checkouts on the machine may run these tests at the same time.
std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() / ("kvroute_e2e_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// token_hit_rate_at_reference per policy for the first SLO, from /summary.
std::map<std::string, double> SummaryHitRates(const std::string& path) {
  H5::H5File file(path, H5F_ACC_RDONLY);
  H5::DataSet summary = file.openDataSet("summary");
  size_t rows = summary.getSpace().getSimpleExtentNpoints();
  struct Row {
    char policy[64];
    uint64_t slo_index;
    double hit;
  };
  H5::CompType type(sizeof(Row));
  type.insertMember("policy", HOFFSET(Row, policy), H5::StrType(H5::PredType::C_S1, 64));
  type.insertMember("slo_index", HOFFSET(Row, slo_index), H5::PredType::NATIVE_UINT64);
  type.insertMember("token_hit_rate_at_reference", HOFFSET(Row, hit), H5::PredType::NATIVE_DOUBLE);
  std::vector<Row> data(rows);
  summary.read(data.data(), type);
  std::map<std::string, double> hits;
  for (const Row& row : data) {
    if (row.slo_index == 0) hits[row.policy] = row.hit;
  }
  return hits;
}

TEST(CliTest, QuickstartRunPrintsTheTableAndWritesTheFile) {
  std::string path = (TempDir() / "quickstart.h5").string();
  std::filesystem::remove(path);
  Outcome o = Cli({"run", "--quiet", "--jobs", "2", "--out", path});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "");  // --quiet
  for (const char* policy : {"flat_lb", "sticky", "cacheroute"}) {
    EXPECT_TRUE(std::regex_search(
        o.out,
        std::regex(
            std::string("\n") + policy +
            R"( +(\d+\.\d( \[[-\d.]+, [-\d.]+\])?|\[[\d.]+, [\d.]+\)|≥ [\d.]+|< [\d.]+) +)")))
        << policy << "\n"
        << o.out;
  }
  EXPECT_NE(o.out.find("SLO p99 ttft <= 2s"), std::string::npos);
  EXPECT_NE(o.out.find("wrote " + path), std::string::npos);
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(analysis::TemporaryPathFor(path)));

  std::map<std::string, double> hits = SummaryHitRates(path);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_GT(hits["sticky"], hits["flat_lb"]);
  EXPECT_GT(hits["cacheroute"], hits["flat_lb"]);
  H5::H5File file(path, H5F_ACC_RDONLY);
  EXPECT_EQ(file.openDataSet("points").getSpace().getSimpleExtentNpoints(), 3 * 10 * 3);
}

TEST(CliTest, PointJsonIsIdenticalAcrossRuns) {
  std::vector<std::string> args{
      "point", "scenarios/quickstart.yaml", "--policy", "cacheroute", "--qps", "100", "--json"};
  Outcome first = Cli(args), second = Cli(args);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(first.out, second.out);
  EXPECT_TRUE(
      std::regex_match(first.out, std::regex(R"(\{"policy":"cacheroute","qps":100,.*\}\n)")));
  EXPECT_EQ(std::count(first.out.begin(), first.out.end(), '\n'), 1);
}

TEST(CliTest, ValidateRejectsAMisspelledKeyNamingItsLine) {
  std::string path = (TempDir() / "misspelled.yaml").string();
  std::ifstream in("scenarios/quickstart.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  size_t at = yaml.find("warmup_s:");
  ASSERT_NE(at, std::string::npos);
  int line = 1 + static_cast<int>(std::count(yaml.begin(), yaml.begin() + at, '\n'));
  yaml.replace(at, 9, "warmup_z:");
  std::ofstream(path) << yaml;
  Outcome o = Cli({"validate", path});
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.err.find(path + ":" + std::to_string(line) + ": key 'warmup_z': unknown key"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "");
}

TEST(CliTest, EveryShippedScenarioValidates) {
  int scenarios = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator("scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenarios;
    Outcome o = Cli({"validate", entry.path().string()});
    EXPECT_EQ(o.status, 0) << entry.path() << ": " << o.err;
  }
  EXPECT_GE(scenarios, 2);
}

// The scenario stored in the file is the one run: --seeds and --policies
// are applied to it.
TEST(CliTest, StoredScenarioReflectsSeedsAndPolicies) {
  std::string path = (TempDir() / "subset.h5").string();
  Outcome o = Cli({"run", "--quiet", "--seeds", "1", "--policies", "sticky", "--set",
                   "sweep.qps=[40]", "--set", "sweep.reference_qps=40", "--out", path});
  ASSERT_EQ(o.status, 0) << o.err;
  analysis::Provenance stored = analysis::ReadResultsHdf5(path).provenance;
  for (const std::string& yaml : {stored.scenario_yaml, stored.resolved_scenario_yaml}) {
    EXPECT_NE(yaml.find("seeds: 1"), std::string::npos) << yaml;
    EXPECT_EQ(yaml.find("flat_lb"), std::string::npos) << yaml;
    EXPECT_NE(yaml.find("sticky"), std::string::npos) << yaml;
  }
  EXPECT_NE(Cli({"run", "--policies", "sticky,sticky", "--out", path}).status, 0);
}

TEST(CliTest, FailureScenarioReportsRetriedRequests) {
  std::string path = (TempDir() / "failures.h5").string();
  Outcome o = Cli({"run", "scenarios/failures.yaml", "--quiet", "--seeds", "1", "--policies",
                   "flat_lb", "--out", path});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex(R"(Replica failures[^\n]*\n[^\n]*\nflat_lb +6 +[1-9][0-9]* +0 )")))
      << o.out;
}

// The shape of what the two workload diagnostics print: every figure the
// issue asks for, with numbers where numbers belong.
TEST(CliTest, TraceStatsPrintsEveryFigure) {
  Outcome o = Cli({"trace-stats", "../shared/traces/mooncake/synthetic_trace.jsonl"});
  ASSERT_EQ(o.status, 0) << o.err;
  for (
      const char* pattern :
      {R"(\nrequests +3993 over [0-9.]+ s \([0-9.]+ QPS\)\n)",
       R"(\nprompt tokens +mean [0-9]+ +p50 [0-9]+ +p90 [0-9]+ +p99 [0-9]+ +max [0-9]+\n)",
       R"(\noutput tokens +mean [0-9]+ +p50 [0-9]+)",
       R"(\nkeys +[0-9]+ seen, Gini 0\.[0-9]+; top key [0-9.]+%, top 1% [0-9.]+%, top 4% [0-9.]+%)",
       R"(\ninter-arrival CV +[0-9.]+)", R"(\nideal hit rate +65\.1% of prompt tokens)",
       R"(\nLRU hit rate +[0-9.]+% with one cache of [0-9]+ blocks)",
       R"(\nseen within 60 +s [0-9.]+% of prompt tokens)", R"(\nreading +[^\n]+)",
       R"(\ntrace block hit rate +64\.0%)"}) {
    EXPECT_TRUE(std::regex_search(o.out, std::regex(pattern))) << pattern << "\n" << o.out;
  }
}

TEST(CliTest, WorkloadStatsPrintsEveryFigure) {
  Outcome o = Cli({"workload-stats", "scenarios/quickstart.yaml", "--qps", "20"});
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* pattern :
       {R"(\nrequests +[0-9]+ over 240\.0 s \(2[0-9.]+ QPS\)\n)", R"(\nideal hit rate +[0-9.]+%)",
        R"(\nLRU hit rate +[0-9.]+% with one cache of 27140 blocks)",
        R"(\nseen within 1800 +s [0-9.]+%)", R"(\nreading +[^\n]+)"}) {
    EXPECT_TRUE(std::regex_search(o.out, std::regex(pattern))) << pattern << "\n" << o.out;
  }
  EXPECT_NE(Cli({"workload-stats", "scenarios/quickstart.yaml", "--qps", "-1"}).status, 0);
}

// plan writes a table; plan --previous reads it back (CSV or JSON), keeps it
// when the rates have not changed, and reports the churn against it.
TEST(CliTest, PlanAgainstAPreviousTable) {
  auto dir = std::filesystem::temp_directory_path() / ("kvroute_plan_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string rates = (dir / "rates.csv").string(), table = (dir / "plan.csv").string(),
                    json = (dir / "plan.json").string();
  {
    std::ofstream f(rates);
    f << "key,rate\n";
    for (int k = 0; k < 50; ++k) f << "shop" << k << "," << 40.0 / (k + 1) << "\n";
  }
  const std::vector<std::string> common{"--replicas",          "4", "--q-cap", "5",
                                        "--slots-per-replica", "6"};
  auto plan = [&](std::vector<std::string> more) {
    std::vector<std::string> args{"plan", rates};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), more.begin(), more.end());
    return Cli(args);
  };
  ASSERT_EQ(plan({"--out", table}).status, 0);
  ASSERT_EQ(plan({"--out", json, "--format", "json"}).status, 0);
  for (const std::string& previous : {table, json}) {
    Outcome o = plan({"--previous", previous});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find(" churn=0 new_assignments=0 "), std::string::npos) << o.out;
  }
  Outcome as_json = plan({"--previous", table, "--format", "json"});
  EXPECT_NE(as_json.out.find("\"churn\": 0, \"new_assignments\": 0"), std::string::npos);
  {
    std::ofstream f(table, std::ios::app);
    f << "shop99,1,0 4\n";
  }
  std::ifstream lines(table);
  const auto last_line =
      std::count(std::istreambuf_iterator<char>(lines), std::istreambuf_iterator<char>(), '\n');
  Outcome bad = plan({"--previous", table});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find(table + ":" + std::to_string(last_line) +
                         ":12: key 'shop99': destination 4 is not below --replicas 4"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(plan({"--previous", table, "--churn-slack", "-1"}).status, 2);
  std::filesystem::remove_all(dir);
}

TEST(CliTest, ValidateAcceptsTheQuickstart) {
  Outcome o = Cli({"validate", "scenarios/quickstart.yaml"});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("ok"), std::string::npos);
}

TEST(CliTest, PoliciesListsEveryPolicyWithItsParameters) {
  Outcome o = Cli({"policies"});
  EXPECT_EQ(o.status, 0);
  for (const char* text : {"round_robin", "random", "flat_lb", "sticky", "cacheroute", "q_cap = 12",
                           "slots_per_replica = 16", "virtual_nodes = 100"}) {
    EXPECT_NE(o.out.find(text), std::string::npos) << text;
  }
}

// docs/CALIBRATION.md is the output of `kvroute profiles --markdown`; a
// change to a profile or the cost model must regenerate it.
TEST(CliTest, CalibrationDocMatchesTheProfiles) {
  Outcome o = Cli({"profiles", "--markdown"});
  ASSERT_EQ(o.status, 0);
  std::ifstream in("docs/CALIBRATION.md");
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(doc.str(), o.out)
      << "regenerate with: kvroute profiles --markdown > docs/CALIBRATION.md";
}

TEST(CliTest, CalibratePrintsQCapAndSlots) {
  Outcome o = Cli({"calibrate", "scenarios/quickstart.yaml"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(q_cap: [0-9.]+\n)")));
  EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(slots_per_replica \(W\): [0-9]+\n)")));
}

TEST(CliTest, UsageErrorsExitNonZeroAndWriteNothing) {
  std::string path = (TempDir() / "never.h5").string();
  std::filesystem::remove(path);
  EXPECT_EQ(Cli({"frobnicate"}).status, 2);
  EXPECT_EQ(Cli({"point", "scenarios/quickstart.yaml", "--qps", "10"}).status, 2);  // no --policy
  Outcome o = Cli({"run", "--policies", "nope", "--out", path});
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.err.find("'nope'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_NE(Cli({"run", "does-not-exist.yaml", "--out", path}).status, 0);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace kvroute::sim

namespace kvroute::sim {
namespace {

// On a terminal a point shows that it is alive: a line redrawn in place with
// the time spent and the work estimate. What it computes is unchanged.
TEST(CliTest, PointOnATerminalShowsProgressWithoutChangingTheResult) {
  const std::vector<std::string> args{"kvroute",  "point",  "scenarios/quickstart.yaml",
                                      "--policy", "sticky", "--qps",
                                      "140",      "--json"};
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream plain_out, plain_err, terminal_out, terminal_err;
  ASSERT_EQ(RunCli(static_cast<int>(argv.size()), argv.data(), plain_out, plain_err, false), 0);
  ASSERT_EQ(RunCli(static_cast<int>(argv.size()), argv.data(), terminal_out, terminal_err, true),
            0);
  EXPECT_EQ(plain_out.str(), terminal_out.str());
  EXPECT_EQ(plain_err.str(), "");
  // A point shorter than a second draws nothing; a longer one, this line.
  if (!terminal_err.str().empty()) {
    EXPECT_TRUE(std::regex_search(
        terminal_err.str(),
        std::regex(
            R"(\rpoint sticky at 140 QPS: running for [0-9]+s \(about [0-9.e]+ requests, )")))
        << terminal_err.str();
  }
}

}  // namespace
}  // namespace kvroute::sim
