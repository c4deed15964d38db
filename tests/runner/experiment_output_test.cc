// What `kvroute run` stores besides its results: the resolved scenario (every
// default filled in, read back to the same scenario), the replayable command
// line, the output-path rules, and the checks on points read back.
#include "sim/runner/experiment_output.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/json_writer.h"
#include "analysis/point_check.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/resolved_scenario.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

// Every shipped scenario: its resolved YAML loads back to a scenario whose
// resolved YAML is the same text, so nothing was lost or defaulted anew.
TEST(ResolvedScenarioTest, EveryShippedScenarioReadsBackToItself) {
  int scenarios = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator("scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenarios;
    Scenario s = LoadScenarioFile(entry.path().string());
    std::string resolved = ResolvedScenarioYaml(s);
    Scenario again;
    try {
      again = LoadScenarioText(resolved, "resolved " + entry.path().string());
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << e.what() << "\n" << resolved;
      continue;
    }
    // The pool derived from the profile the first time is given the second.
    const std::string derived = "  # derived from the profile";
    resolved.erase(resolved.find(derived), derived.size());
    EXPECT_EQ(ResolvedScenarioYaml(again), resolved) << entry.path();
  }
  EXPECT_GE(scenarios, 10);
}

// Defaults the scenario leaves out are written: a later kvroute with other
// defaults still knows what ran.
TEST(ResolvedScenarioTest, FillsInDefaults) {
  Scenario s = LoadScenarioText(
      "name: tiny\ncluster: {deployments: [{replicas: 2}]}\nworkload: {keys: 10}\n"
      "policies: [sticky]\nsweep: {qps: [5]}\nslo: [{threshold_s: 1}]\n",
      "tiny");
  std::string yaml = ResolvedScenarioYaml(s);
  for (const char* expected :
       {"duration_s: 300", "warmup_s: 30", "profile: \"h100-llama3.1-8b-bf16\"",
        "max_num_seqs: 256", "# derived from the profile", "virtual_nodes: 100", "percentile: 99",
        "reference_qps: 5", "retry_limit: 1", "kind: poisson"}) {
    EXPECT_NE(yaml.find(expected), std::string::npos) << expected << " in\n" << yaml;
  }
}

// The resolved scenario runs the same point, to the bit.
TEST(ResolvedScenarioTest, RunsTheSamePoint) {
  Scenario s = LoadScenarioFile("scenarios/canary.yaml", {"duration_s=40", "warmup_s=5"});
  Scenario resolved = LoadScenarioText(ResolvedScenarioYaml(s), "resolved");
  PointSpec spec{0, 20, 1};
  EXPECT_EQ(analysis::PointToJson(RunPoint(s, spec), s.slos),
            analysis::PointToJson(RunPoint(resolved, spec), resolved.slos));
}

TEST(CommandLineTest, QuotesWhatTheShellWouldChangeAndSplitsBack) {
  const char* argv[] = {"build/release/kvroute",
                        "scenarios/q.yaml",
                        "--set",
                        "sweep.qps=[10, 20]",
                        "--set",
                        "name=it's",
                        "--out",
                        "a b.h5",
                        ""};
  std::string line = ReplayableCommandLine("run", 9, argv);
  EXPECT_EQ(line,
            "build/release/kvroute run scenarios/q.yaml --set 'sweep.qps=[10, 20]' --set "
            "'name=it'\\''s' --out 'a b.h5' ''");
  std::vector<std::string> words = SplitCommandLine(line);
  ASSERT_EQ(words.size(), 10u);
  EXPECT_EQ(words[1], "run");
  for (int i = 1; i < 9; ++i) EXPECT_EQ(words[static_cast<size_t>(i) + 1], argv[i]);
}

TEST(OutputPathTest, RefusesToOverwriteWithoutForceAndNeverTheScenario) {
  auto dir = std::filesystem::temp_directory_path() / ("kvroute_out_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Scenario s;
  s.source = (dir / "scenario.yaml").string();
  std::ofstream(s.source) << "name: x\n";
  const std::string out = (dir / "out.h5").string();
  EXPECT_NO_THROW(CheckOverwrite(out, s, false));  // nothing there yet
  std::ofstream(out) << "results";
  EXPECT_THROW(CheckOverwrite(out, s, false), std::runtime_error);
  EXPECT_NO_THROW(CheckOverwrite(out, s, true));
  EXPECT_THROW(CheckOverwrite(s.source, s, true), std::runtime_error);
  EXPECT_THROW(CheckOverwrite(dir.string(), s, true), std::runtime_error);
  EXPECT_THROW(CheckOverwrite("", s, true), std::runtime_error);
  std::filesystem::remove_all(dir);
}

// A real point of a scenario passes the checks a resumed record must pass:
// the invariants hold for what the simulation produces, failures and several
// deployments included.
TEST(PointCheckTest, SimulatedPointsPassTheirScenariosChecks) {
  for (const char* path : {"scenarios/canary.yaml", "scenarios/failures.yaml",
                           "scenarios/sessions_rag.yaml", "scenarios/quickstart.yaml"}) {
    Scenario s = LoadScenarioFile(path, {"duration_s=100", "warmup_s=10", "drain_s=60"});
    for (double qps : {s.qps.front(), s.qps.back()}) {
      analysis::PointResult p = RunPoint(s, PointSpec{0, qps, 1});
      EXPECT_NO_THROW(analysis::CheckPoint(p, ExpectationsFor(s))) << path << " at " << qps;
      try {
        analysis::CheckPoint(p, ExpectationsFor(s));
      } catch (const std::exception& e) {
        ADD_FAILURE() << path << ": " << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace kvroute::sim
