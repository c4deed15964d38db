// End-to-end: what `kvroute run` and `kvroute report` write — an output never
// overwritten without --force, a stored command line that replays to the same
// file, a point's JSON equal to its row of the results file, and plots in
// every format, with published values and without load plots for one load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/hdf5_reader.h"
#include "analysis/json_writer.h"
#include "analysis/point_codec.h"
#include "sim/runner/experiment_output.h"
#include "tests/e2e/cli_harness.h"

namespace kvroute::sim {
namespace {

std::filesystem::path Dir() {
  return std::filesystem::temp_directory_path() /
         ("kvroute_output_e2e_" + std::to_string(getpid()));
}

std::string Path(const std::string& name) {
  std::filesystem::create_directories(Dir());
  std::string path = (Dir() / name).string();
  std::filesystem::remove(path);
  return path;
}

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string> kShort{
    "--set", "duration_s=40",       "--set", "warmup_s=10",           "--set", "drain_s=20",
    "--set", "sweep.qps=[60, 120]", "--set", "sweep.reference_qps=60"};

std::vector<std::string> RunArgs(const std::string& out, std::vector<std::string> more = {}) {
  std::vector<std::string> args{"run", "--quiet", "--seeds", "2", "--jobs", "2", "--out", out};
  args.insert(args.end(), kShort.begin(), kShort.end());
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

class OutputCliTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    results_ = new std::string(Path("results.h5"));
    Outcome o = Cli(RunArgs(*results_));
    ASSERT_EQ(o.status, 0) << o.err;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(Dir()); }
  static std::string* results_;
};
std::string* OutputCliTest::results_ = nullptr;

TEST_F(OutputCliTest, AnExistingOutputIsReplacedOnlyWithForce) {
  std::string path = Path("again.h5");
  std::filesystem::copy_file(*results_, path);
  const std::string before = Bytes(path);
  Outcome refused = Cli(RunArgs(path));
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.err.find(path + "': exists"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(Bytes(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));  // refused before starting
  Outcome forced = Cli(RunArgs(path, {"--force"}));
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_NE(Bytes(path), before);  // another created_utc at least
}

TEST_F(OutputCliTest, TheStoredCommandLineReplaysToTheSameFile) {
  analysis::StoredResults first = analysis::ReadResultsHdf5(*results_);
  std::vector<std::string> words = SplitCommandLine(first.provenance.command_line);
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(words[1], "run");
  const std::string moved = Path("first.h5");
  std::filesystem::rename(*results_, moved);
  Outcome replay = Cli(std::vector<std::string>(words.begin() + 1, words.end()));
  ASSERT_EQ(replay.status, 0) << replay.err;
  analysis::StoredResults second = analysis::ReadResultsHdf5(*results_);
  ASSERT_EQ(second.results.points.size(), first.results.points.size());
  for (size_t i = 0; i < first.results.points.size(); ++i) {
    EXPECT_EQ(analysis::EncodePoint(second.results.points[i]),
              analysis::EncodePoint(first.results.points[i]));
  }
  EXPECT_EQ(second.provenance.scenario_hash, first.provenance.scenario_hash);
  EXPECT_EQ(second.provenance.resolved_scenario_yaml, first.provenance.resolved_scenario_yaml);
  EXPECT_EQ(second.provenance.command_line, first.provenance.command_line);
}

// `point --json` for a point of the sweep is that point's row of the file:
// every column, the same values.
TEST_F(OutputCliTest, APointsJsonIsItsRowOfTheResultsFile) {
  analysis::StoredResults stored = analysis::ReadResultsHdf5(*results_);
  for (const analysis::PointResult& row : stored.results.points) {
    if (row.policy != "cacheroute" || row.qps != 60 || row.seed != 2) continue;
    std::vector<std::string> args{"point",    "scenarios/quickstart.yaml",
                                  "--policy", "cacheroute",
                                  "--qps",    "60",
                                  "--seed",   "2",
                                  "--json"};
    args.insert(args.end(), kShort.begin(), kShort.end());
    Outcome o = Cli(args);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, analysis::PointToJson(row, stored.results.slos) + "\n");
    EXPECT_NE(o.out.find("\"tenant_fairness\":"), std::string::npos);
    EXPECT_NE(o.out.find("\"refinement_round\":0"), std::string::npos);
    EXPECT_NE(o.out.find("\"tenants\":[{\"tenant\":"), std::string::npos);
    return;
  }
  FAIL() << "no cacheroute point at 60 QPS, seed 2";
}

bool HavePython() {
  return std::filesystem::exists("/usr/bin/python3") || std::getenv("KVROUTE_PYTHON");
}

std::string Head(const std::filesystem::path& file, size_t n) { return Bytes(file).substr(0, n); }

TEST_F(OutputCliTest, PlotsInEveryFormatWithPublishedValues) {
  if (!HavePython()) GTEST_SKIP() << "no python3 for the plots";
  const std::string csv = Path("published.csv");
  std::ofstream(csv) << "# from the paper\npolicy,capacity_qps,ci_low_qps,ci_high_qps,source\n"
                        "cacheroute,100,90,110,paper Table 3\nflat_lb,70,,,paper Table 3\n";
  auto svg = Dir() / "svg";
  Outcome o = Cli(
      {"report", *results_, "--plots", svg.string(), "--plot-format", "svg", "--published", csv});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(Bytes((svg / "capacity.svg").string()).find("<svg"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(svg / "capacity.png"));
  for (const auto& entry : std::filesystem::directory_iterator(svg)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }

  const std::string yaml = Path("published.yaml");
  std::ofstream(yaml) << "- {policy: sticky, capacity_qps: 50, slo: 1}\n";
  auto pdf = Dir() / "pdf";
  o = Cli({"report", *results_, "--plots", pdf.string(), "--plot-format", "pdf", "--dpi", "300",
           "--published", yaml});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(Head(pdf / "slo_vs_load.pdf", 4), "%PDF");
}

// Pixels scale with --dpi: the PNG's width (IHDR, bytes 16-19) doubles.
TEST_F(OutputCliTest, DpiSetsThePngResolution) {
  if (!HavePython()) GTEST_SKIP() << "no python3 for the plots";
  auto width = [](const std::filesystem::path& png) {
    std::string b = Head(png, 24);
    return (static_cast<uint32_t>(static_cast<unsigned char>(b[16])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(b[17])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(b[18])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(b[19]));
  };
  auto low = Dir() / "dpi100", high = Dir() / "dpi200";
  ASSERT_EQ(Cli({"report", *results_, "--plots", low.string(), "--dpi", "100"}).status, 0);
  ASSERT_EQ(Cli({"report", *results_, "--plots", high.string(), "--dpi", "200"}).status, 0);
  EXPECT_EQ(width(high / "replica_load.png"), 2 * width(low / "replica_load.png"));
}

TEST_F(OutputCliTest, BadPlotOptionsAreUsageErrors) {
  auto dir = (Dir() / "bad").string();
  EXPECT_EQ(Cli({"report", *results_, "--plots", dir, "--plot-format", "gif"}).status, 2);
  EXPECT_EQ(Cli({"report", *results_, "--plots", dir, "--dpi", "10"}).status, 2);
  EXPECT_EQ(Cli({"report", *results_, "--dpi", "300"}).status, 2);  // needs --plots
  const std::string csv = Path("bad_published.csv");
  std::ofstream(csv) << "policy,capacity_qps\ncacheroute,100\nnobody,5\n";
  Outcome o = Cli({"report", *results_, "--plots", dir, "--published", csv});
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find(csv + ":3: key 'policy': 'nobody' is not a policy"), std::string::npos)
      << o.err;
  std::ofstream(csv) << "policy,capacity\ncacheroute,100\n";
  o = Cli({"report", *results_, "--plots", dir, "--published", csv});
  EXPECT_NE(o.err.find(csv + ":2: key 'capacity': unknown key"), std::string::npos) << o.err;
}

// One load: no curve against load and no capacity to draw.
TEST(OutputCliSingleLoadTest, NoLoadOrCapacityPlots) {
  if (!HavePython()) GTEST_SKIP() << "no python3 for the plots";
  std::string out = Path("single.h5");
  Outcome run = Cli({"run", "--quiet", "--seeds", "1", "--policies", "flat_lb", "--out", out,
                     "--set", "duration_s=30", "--set", "warmup_s=5", "--set", "drain_s=10",
                     "--set", "sweep.qps=[40]", "--set", "sweep.reference_qps=40"});
  ASSERT_EQ(run.status, 0) << run.err;
  auto dir = Dir() / "single_plots";
  Outcome o = Cli({"report", out, "--plots", dir.string()});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "replica_load.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "hit_rate_over_time.png"));
  for (const char* name : {"slo_vs_load.png", "hit_rate_vs_load.png", "capacity.png"}) {
    EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
  }
}

// A valid scenario larger than HDF5's 64 KiB attribute limit (a deployment
// with a long weight schedule) runs, and its text is stored whole.
TEST(OutputCliLargeScenarioTest, AScenarioOver64KiBRunsAndIsStored) {
  std::string yaml =
      "name: large\nduration_s: 20\nwarmup_s: 5\ndrain_s: 10\n"
      "cluster:\n  deployments:\n    - name: main\n      replicas: 2\n      schedule:\n";
  for (int step = 1; step <= 3000; ++step) {
    yaml += "        - {at_s: " + std::to_string(step) +
            ".001, weight: " + std::to_string(1 + step % 7) + "}\n";
  }
  yaml +=
      "workload: {keys: 20}\npolicies: [flat_lb]\nsweep: {qps: [10]}\n"
      "slo: [{threshold_s: 2}]\n";
  ASSERT_GT(yaml.size(), 65536u);
  const std::string scenario = Path("large.yaml"), out = Path("large.h5");
  std::ofstream(scenario) << yaml;
  Outcome o = Cli({"run", scenario, "--quiet", "--out", out});
  ASSERT_EQ(o.status, 0) << o.err;
  analysis::Provenance stored = analysis::ReadResultsHdf5(out).provenance;
  EXPECT_GT(stored.scenario_yaml.size(), 65536u);
  EXPECT_GT(stored.resolved_scenario_yaml.size(), 65536u);
  EXPECT_NE(stored.resolved_scenario_yaml.find("at_s: 3000.001"), std::string::npos);
}

std::string DocsOutput() { return Bytes("docs/OUTPUT.md"); }

// docs/OUTPUT.md's reference section is what `kvroute report --schema` prints.
// KVROUTE_REGENERATE_DOCS=1 rewrites it.
TEST(OutputDocsTest, TheReferenceSectionIsWhatTheBinaryPrints) {
  const std::string begin =
      "<!-- BEGIN generated by `kvroute report --schema`; a test keeps it "
      "equal -->\n";
  const std::string end = "<!-- END generated -->\n";
  std::string docs = DocsOutput();
  size_t from = docs.find(begin), to = docs.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  from += begin.size();
  Outcome schema = Cli({"report", "--schema"});
  ASSERT_EQ(schema.status, 0) << schema.err;
  if (std::getenv("KVROUTE_REGENERATE_DOCS")) {
    std::ofstream("docs/OUTPUT.md") << docs.substr(0, from) << schema.out << docs.substr(to);
    return;
  }
  EXPECT_EQ(docs.substr(from, to - from), schema.out)
      << "regenerate with: KVROUTE_REGENERATE_DOCS=1 build/release/tests/e2e_test "
         "--gtest_filter=OutputDocsTest.*";
}

// The three lines docs/OUTPUT.md gives for pandas load a results file.
TEST_F(OutputCliTest, TheDocumentedPandasLoadWorks) {
  if (std::system("/usr/bin/python3 -c 'import pandas, h5py' 2>/dev/null") != 0) {
    GTEST_SKIP() << "no python3-pandas and python3-h5py (scripts/bootstrap.sh installs them)";
  }
  std::string docs = DocsOutput();
  size_t start = docs.find("```python\n", docs.find("### Loading it with pandas"));
  ASSERT_NE(start, std::string::npos);
  start += 10;
  std::string code = docs.substr(start, docs.find("```", start) - start);
  EXPECT_EQ(std::count(code.begin(), code.end(), '\n'), 3) << code;
  auto dir = Dir() / "pandas";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(*results_, dir / "quickstart.h5",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "load.py") << code
                                 << "assert len(points) == 3 * 2 * 2, len(points)\n"
                                    "assert set(points['policy']) == {'flat_lb', 'sticky', "
                                    "'cacheroute'}\n";
  std::string command = "cd '" + dir.string() + "' && /usr/bin/python3 load.py";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

}  // namespace
}  // namespace kvroute::sim
