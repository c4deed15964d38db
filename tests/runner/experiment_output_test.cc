// What `kvroute run` stores besides its results (the resolved scenario is
// tested with its printer, scenario_printer_test.cc): the replayable command
// line and the checks on points read back.
#include "sim/runner/experiment_output.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/point_check.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

TEST(CommandLineTest, QuotesWhatTheShellWouldChangeAndSplitsBack) {
  const char* argv[] = {"build/release/kvroute",
                        "run",
                        "scenarios/q.yaml",
                        "--set",
                        "sweep.qps=[10, 20]",
                        "--set",
                        "name=it's",
                        "--out",
                        "a b.h5",
                        ""};
  std::string line = ShellCommandLine(10, argv);
  EXPECT_EQ(line,
            "build/release/kvroute run scenarios/q.yaml --set 'sweep.qps=[10, 20]' --set "
            "'name=it'\\''s' --out 'a b.h5' ''");
  std::vector<std::string> words = SplitCommandLine(line);
  ASSERT_EQ(words.size(), 10u);
  EXPECT_EQ(words[1], "run");
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(words[i], argv[i]);
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
