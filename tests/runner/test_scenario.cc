#include "tests/runner/test_scenario.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

std::string Number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

}  // namespace

std::string ScenarioText(const TestScenario& t) {
  return "name: " + t.name + "\nseed: 1\nduration_s: " + Number(t.duration_s) +
         "\nwarmup_s: 0\ndrain_s: " + Number(t.drain_s) +
         "\ncluster:\n  profile: h100-llama3.1-8b-bf16\n  deployments: [{name: main, replicas: " +
         std::to_string(t.replicas) + "}]\nworkload:\n" + t.workload +
         (t.workload.ends_with("\n") ? "" : "\n") + "policies: " + t.policies + "\n" +
         (t.qps > 0 ? "sweep: {qps: [" + Number(t.qps) + "]}\n" : "") +
         "slo: [{metric: ttft, percentile: 99, threshold_s: 2}]\n";
}

Scenario LoadTestScenario(const TestScenario& t, const std::vector<std::string>& overrides) {
  return LoadScenarioText(ScenarioText(t), t.name + ".yaml", overrides);
}

std::string LoadError(const TestScenario& t) {
  try {
    LoadTestScenario(t);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TestDirectory::TestDirectory(const std::string& group)
    : path_(std::filesystem::path(::testing::TempDir()) / group /
            ::testing::UnitTest::GetInstance()->current_test_info()->name()) {
  std::filesystem::create_directories(path_);
}

std::string TestDirectory::Write(const std::string& name, const std::string& text) const {
  std::ofstream(path_ / name, std::ios::binary) << text;
  return (path_ / name).string();
}

Scenario TestDirectory::Load(const std::string& scenario_text) const {
  return LoadScenarioFile(Write("s.yaml", scenario_text));
}

Scenario SmallCluster(const std::vector<std::string>& overrides) {
  const char* text = R"(name: small
seed: 1
duration_s: 120
warmup_s: 20
drain_s: 60
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 4}]
workload:
  keys: 200
  prompt: {system_tokens: 1024, new_tokens: {kind: uniform, min: 32, max: 512}}
  output_tokens: {kind: uniform, min: 1, max: 200}
policies: [round_robin, random, flat_lb, sticky, {name: cacheroute, q_cap: 10, slots_per_replica: 40, interval_s: 30}]
sweep: {qps: [10, 20]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
)";
  return LoadScenarioText(text, "small", overrides);
}

}  // namespace kvroute::sim
