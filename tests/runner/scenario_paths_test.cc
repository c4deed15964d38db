// Paths in a scenario file are relative to the file, so a scenario runs from
// any working directory; a path given with --set is relative to the working
// directory, as a shell path is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

namespace fs = std::filesystem;

const char kTraceScenario[] = R"(name: replay
cluster: {deployments: [{replicas: 2}]}
workload:
  trace: {format: azure, file: traces/t.csv}
policies: [flat_lb]
sweep: {qps: [1]}
slo: [{threshold_s: 1}]
)";

class ScenarioPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kvroute_paths_" + std::to_string(getpid()));
    fs::create_directories(dir_ / "traces");
    std::ofstream(dir_ / "traces" / "t.csv")
        << "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6,374,44\n"
           "2023-11-16 18:15:47.1,96,9\n";
    std::ofstream(dir_ / "s.yaml") << kTraceScenario;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ScenarioPathsTest, ATraceIsFoundRelativeToTheScenarioFile) {
  // The tests run in the repository root, not in dir_.
  const Scenario s = LoadScenarioFile((dir_ / "s.yaml").string());
  EXPECT_EQ(s.workload.trace.file, (dir_ / "traces" / "t.csv").string());
}

TEST_F(ScenarioPathsTest, ASetPathIsRelativeToTheWorkingDirectory) {
  const fs::path here = fs::current_path();
  fs::current_path(dir_ / "traces");
  try {
    const Scenario s = LoadScenarioFile((dir_ / "s.yaml").string(), {"workload.trace.file=t.csv"});
    EXPECT_EQ(s.workload.trace.file, (dir_ / "traces" / "t.csv").string());
  } catch (...) {
    fs::current_path(here);
    throw;
  }
  fs::current_path(here);
}

TEST_F(ScenarioPathsTest, TheShippedTraceScenariosWorkFromAnotherDirectory) {
  const fs::path root = fs::current_path();
  fs::current_path(dir_);
  for (const char* name : {"mooncake_conversation.yaml", "azure_conv.yaml", "bursty_drift.yaml"}) {
    EXPECT_NO_THROW(LoadScenarioFile((root / "scenarios" / name).string())) << name;
  }
  fs::current_path(root);
}

}  // namespace
}  // namespace kvroute::sim
