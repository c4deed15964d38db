// Small scenarios for the runner's end-to-end tests, written as YAML text and
// loaded as a user's file would be: one deployment of H100s serving
// Llama-3.1-8B (bf16) around the part a test varies. Also a directory of the
// running test's own for a scenario and the files it names.
#ifndef KVROUTE_TESTS_RUNNER_TEST_SCENARIO_H_
#define KVROUTE_TESTS_RUNNER_TEST_SCENARIO_H_

#include <filesystem>
#include <string>
#include <vector>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

struct TestScenario {
  std::string name = "test";
  double duration_s = 60;
  double drain_s = 600;
  int replicas = 1;
  // The lines under `workload:`, each indented by two spaces.
  std::string workload;
  std::string policies = "[round_robin]";
  double qps = 2;  // sweep.qps; 0: no sweep (a trace replayed at its own rate)
};

// The scenario as YAML text (seed 1, no warm-up, one p99 TTFT SLO of 2 s).
std::string ScenarioText(const TestScenario& t);

// Loads ScenarioText(t) as the file `<t.name>.yaml` with `overrides`.
Scenario LoadTestScenario(const TestScenario& t, const std::vector<std::string>& overrides = {});

// The message of the error loading `t` throws, or "(no error)".
std::string LoadError(const TestScenario& t);

// Four replicas, 200 keys with 1,024-token system prompts, round_robin,
// random, flat_lb, sticky and cacheroute, loads 10 and 20, 120 s: the
// cluster simulation's and failure tests' common case.
Scenario SmallCluster(const std::vector<std::string>& overrides = {});

// <gtest temp dir>/<group>/<test name>: ctest runs tests side by side, so each
// test writes its files in a directory of its own.
class TestDirectory {
 public:
  explicit TestDirectory(const std::string& group);
  // Writes `text` to the file `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& text) const;
  // Writes the scenario as s.yaml and loads it; the files it names are
  // relative to the directory.
  Scenario Load(const std::string& scenario_text) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_TESTS_RUNNER_TEST_SCENARIO_H_
