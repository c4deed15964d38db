// `kvroute validate --print`: the resolved scenario loads back to the same
// scenario — printing it again gives the same text, and its points the same
// results.
#include "sim/runner/scenario_printer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

TEST(ScenarioPrinterTest, EveryShippedScenarioPrintsToAFixedPoint) {
  int scenarios = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator("scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenarios;
    const Scenario original = LoadScenarioFile(entry.path().string());
    const std::string printed = ResolvedScenarioYaml(original);
    // From another directory: every path in it is absolute.
    const Scenario reloaded = LoadScenarioText(printed, "printed", {}, "/");
    EXPECT_EQ(ResolvedScenarioYaml(reloaded), printed) << entry.path();
    EXPECT_EQ(reloaded.name, original.name);
    EXPECT_EQ(reloaded.qps, original.qps);
    EXPECT_EQ(reloaded.SeedList(), original.SeedList());
    EXPECT_EQ(reloaded.replica_count(), original.replica_count());
    ASSERT_EQ(reloaded.policies.size(), original.policies.size());
    for (size_t i = 0; i < original.policies.size(); ++i) {
      EXPECT_EQ(reloaded.policies[i].label, original.policies[i].label);
    }
    EXPECT_EQ(reloaded.workload.trace.file, original.workload.trace.file);
  }
  EXPECT_GE(scenarios, 10);
}

TEST(ScenarioPrinterTest, DefaultsAreFilledIn) {
  const std::string printed = ResolvedScenarioYaml(LoadScenarioText(R"(name: small
cluster: {deployments: [{replicas: 2}]}
workload: {keys: 10}
policies: [sticky]
sweep: {qps: [1, 2, 3]}
slo: [{threshold_s: 1}]
)",
                                                                    "s.yaml"));
  for (const char* text :
       {"seeds: 1\n", "duration_s: 300\n", "warmup_s: 30\n", "drain_s: 120\n",
        "profile: h100-llama3.1-8b-bf16\n", "- {name: d0, replicas: 2, weight: 1}",
        "eviction: radix_lru\n", "signal_refresh_s: 0\n", "series_interval_s: 10\n",
        "rate_skew: {kind: zipf, s: 1}", "system_tokens: 1024\n", "new_tokens: 256\n",
        "output_tokens: 128\n", "- {name: sticky, virtual_nodes: 100}", "reference_qps: 2\n",
        "- {metric: ttft, percentile: 99, threshold_s: 1}", "retry_limit: 1\n"}) {
    EXPECT_NE(printed.find(text), std::string::npos) << text << "\n" << printed;
  }
}

TEST(ScenarioPrinterTest, APrintedScenarioRunsTheSamePoints) {
  const std::vector<std::string> shorter{"duration_s=40", "warmup_s=5", "drain_s=20"};
  const Scenario original = LoadScenarioFile("scenarios/quickstart.yaml", shorter);
  const Scenario reloaded = LoadScenarioText(ResolvedScenarioYaml(original), "printed");
  for (size_t policy = 0; policy < original.policies.size(); ++policy) {
    const PointSpec spec{policy, 60, 1};
    EXPECT_EQ(analysis::PointToJson(RunPoint(original, spec), original.slos),
              analysis::PointToJson(RunPoint(reloaded, spec), reloaded.slos))
        << original.policies[policy].label;
  }
}

}  // namespace
}  // namespace kvroute::sim
