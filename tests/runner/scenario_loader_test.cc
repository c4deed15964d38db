#include "sim/runner/scenario_loader.h"

#include <gtest/gtest.h>

namespace kvroute::sim {
namespace {

const char kMinimal[] = R"(name: tiny
seed: 4
seeds: 2
duration_s: 60
warmup_s: 10
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 2}]
workload:
  keys: 20
  prompt: {system_tokens: 64, new_tokens: {kind: uniform, min: 10, max: 20}}
  output_tokens: 8
policies:
  - flat_lb
  - {name: cacheroute, q_cap: 5}
sweep: {qps: [1, 2, 4]}
slo: [{metric: ttft, percentile: 99, threshold_s: 1}]
)";

std::string ErrorOf(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    LoadScenarioText(text, "s.yaml", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ScenarioLoaderTest, ReadsEveryField) {
  Scenario s = LoadScenarioText(kMinimal, "s.yaml");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.SeedList(), (std::vector<uint64_t>{4, 5}));
  EXPECT_EQ(s.replica_count(), 2u);
  EXPECT_EQ(s.workload.keys, 20u);
  EXPECT_EQ(s.workload.system_tokens, 64u);
  EXPECT_EQ(s.workload.new_tokens.max, 20);
  EXPECT_EQ(s.workload.output_tokens.value, 8);
  ASSERT_EQ(s.policies.size(), 2u);
  EXPECT_EQ(s.policies[1].params.at(0).name, "q_cap");
  EXPECT_EQ(s.policies[1].params.at(0).value, 5);
  EXPECT_EQ(s.qps, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(s.reference_qps, 2);  // the middle of the grid
  EXPECT_EQ(s.slos.at(0).threshold_s, 1);
}

TEST(ScenarioLoaderTest, MisspelledKeyNamesFileLineAndKey) {
  std::string error = ErrorOf(Replace(kMinimal, "  keys: 20", "  kyes: 20"));
  EXPECT_NE(error.find("s.yaml:10: key 'workload.kyes': unknown key"), std::string::npos) << error;
  EXPECT_NE(error.find("keys"), std::string::npos);
}

TEST(ScenarioLoaderTest, MisspelledTopLevelKey) {
  std::string error = ErrorOf(Replace(kMinimal, "warmup_s: 10", "warmpu_s: 10"));
  EXPECT_NE(error.find("s.yaml:5: key 'warmpu_s'"), std::string::npos) << error;
}

TEST(ScenarioLoaderTest, UnknownPolicyParameterNamesItsLine) {
  std::string error = ErrorOf(Replace(kMinimal, "q_cap: 5", "qcap: 5"));
  EXPECT_NE(error.find("s.yaml:15"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown parameter 'qcap'"), std::string::npos) << error;
}

TEST(ScenarioLoaderTest, UnknownPolicyListsTheValidOnes) {
  std::string error = ErrorOf(Replace(kMinimal, "  - flat_lb", "  - flat_bl"));
  EXPECT_NE(error.find("s.yaml:14: key 'policies[0].name': unknown policy 'flat_bl'"),
            std::string::npos)
      << error;
}

TEST(ScenarioLoaderTest, WrongTypesAndRangesAreErrors) {
  EXPECT_NE(ErrorOf(Replace(kMinimal, "seeds: 2", "seeds: two"))
                .find("key 'seeds': expected a whole number"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Replace(kMinimal, "seeds: 2", "seeds: 0")).find("must be in [1"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Replace(kMinimal, "[1, 2, 4]", "[2, 1]")).find("strictly increasing"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Replace(kMinimal, "metric: ttft", "metric: latency")).find("unknown metric"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Replace(kMinimal, "warmup_s: 10", "warmup_s: 60")).find("less than duration_s"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Replace(kMinimal, "profile: h100-llama3.1-8b-bf16", "profile: a100"))
                .find("unknown profile 'a100'"),
            std::string::npos);
}

TEST(ScenarioLoaderTest, EvictionOrderIsAChoice) {
  Scenario s = LoadScenarioText(kMinimal, "s.yaml", {"cluster.eviction=vllm_free_queue"});
  EXPECT_EQ(s.scheduler.eviction, models::EvictionOrder::kVllmFreeQueue);
  EXPECT_NE(ErrorOf(kMinimal, {"cluster.eviction=fifo"}).find("valid: radix_lru, vllm_free_queue"),
            std::string::npos);
}

TEST(ScenarioLoaderTest, DeploymentHitEstimateIsAChoice) {
  EXPECT_EQ(LoadScenarioText(kMinimal, "s.yaml").deployment_hit_estimate,
            Scenario::HitEstimate::kExact);
  Scenario s = LoadScenarioText(kMinimal, "s.yaml", {"cluster.deployment_hit_estimate=router"});
  EXPECT_EQ(s.deployment_hit_estimate, Scenario::HitEstimate::kRouter);
  std::string error = ErrorOf(kMinimal, {"cluster.deployment_hit_estimate=guess"});
  EXPECT_NE(
      error.find("cluster.deployment_hit_estimate': unknown hit estimate 'guess' (valid: exact, "
                 "router)"),
      std::string::npos)
      << error;
}

TEST(ScenarioLoaderTest, OverlappingFailuresOfOneReplicaAreRejected) {
  std::string error =
      ErrorOf(kMinimal, {"failures={schedule: [{replica: 0, at_s: 10, recover_after_s: 20}, "
                         "{replica: 0, at_s: 20, recover_after_s: 5}, {replica: 1, at_s: 15}]}"});
  EXPECT_NE(error.find("failures.schedule[1]': overlaps an earlier failure of replica 0"),
            std::string::npos)
      << error;
  EXPECT_EQ(ErrorOf(kMinimal, {"failures={schedule: [{replica: 0, at_s: 10, recover_after_s: 5}, "
                               "{replica: 0, at_s: 15}]}"}),
            "");
}

TEST(ScenarioLoaderTest, SessionsNeedAtLeastOneTurnOnEveryDraw) {
  std::string error =
      ErrorOf(kMinimal, {"workload.sessions={turns: {kind: uniform, min: 0, max: 2}}"});
  EXPECT_NE(error.find("workload.sessions.turns"), std::string::npos) << error;
}

TEST(ScenarioLoaderTest, MissingRequiredSectionIsAnError) {
  std::string text = kMinimal;
  text = text.substr(0, text.find("slo:"));
  EXPECT_NE(ErrorOf(text).find("key 'slo': required key is missing"), std::string::npos);
}

TEST(ScenarioLoaderTest, InvalidYamlNamesTheLine) {
  std::string error = ErrorOf("name: x\nseeds: [1, 2\n");
  EXPECT_NE(error.find("s.yaml:"), std::string::npos) << error;
}

TEST(ScenarioLoaderTest, SetOverridesAnyKey) {
  Scenario s = LoadScenarioText(kMinimal, "s.yaml",
                                {"workload.keys=99", "sweep.qps=[3, 6]", "policies=[sticky]"});
  EXPECT_EQ(s.workload.keys, 99u);
  EXPECT_EQ(s.qps, (std::vector<double>{3, 6}));
  EXPECT_EQ(s.policies.at(0).name, "sticky");
  EXPECT_NE(s.yaml.find("99"), std::string::npos);  // the scenario as run
}

TEST(ScenarioLoaderTest, BadOverrideNamesTheOverride) {
  std::string error = ErrorOf(kMinimal, {"workload.kyes=3"});
  EXPECT_NE(error.find("--set workload.kyes"), std::string::npos) << error;
  EXPECT_NE(ErrorOf(kMinimal, {"novalue"}).find("expected path.to.key=value"), std::string::npos);
}

TEST(ScenarioLoaderTest, QuickstartIsValid) {
  Scenario s = LoadScenarioText(QuickstartYaml(), "built-in quickstart");
  EXPECT_EQ(s.name, "quickstart");
  EXPECT_GE(s.qps.size(), 6u);
  EXPECT_GE(s.seeds, 3u);
  EXPECT_EQ(s.replica_count(), 8u);
}

TEST(ScenarioLoaderTest, EveryShippedScenarioLoads) {
  for (const char* name :
       {"paper_gini", "whales", "sessions_rag", "bursty_drift", "mooncake_conversation",
        "azure_conv", "sessions_agents", "shared_prefix_chat", "servegen_clients"}) {
    EXPECT_NO_THROW(LoadScenarioFile(std::string("scenarios/") + name + ".yaml")) << name;
  }
}

TEST(ScenarioLoaderTest, WorkloadErrorsNameTheirKey) {
  EXPECT_NE(ErrorOf(kMinimal, {"workload.rate_skew={kind: pareto}"})
                .find("'workload.rate_skew.kind': unknown rate distribution 'pareto'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(kMinimal, {"workload.arrivals={kind: gamma, cv: -1}"}).find("'workload.arrivals.cv'"),
      std::string::npos);
  EXPECT_NE(ErrorOf(kMinimal, {"workload.whales=[0.6, 0.5]"}).find("'workload.whales'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kMinimal, {"workload.trace={format: mooncake, file: /no/such.jsonl}"})
                .find("'workload.trace.file': /no/such.jsonl: no such trace file"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kMinimal, {"workload.trace={format: azure, file: "
                               "../shared/traces/azure2023/AzureLLMInferenceTrace_code.csv}"})
                .find("a trace replaces the synthetic workload"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kMinimal, {"workload.sessions={turns: 2, think_time: 5}"})
                .find("'workload.sessions.think_time': unknown key"),
            std::string::npos);
}

// A trace at native timing has one load, its own rate (the conversation
// trace: 12,031 requests over 3,537.0 s); the sweep may not give loads.
TEST(ScenarioLoaderTest, NativeTraceTimingMakesTheTracesRateTheOnlyLoad) {
  std::string native =
      Replace(Replace(kMinimal, "sweep: {qps: [1, 2, 4]}\n", ""),
              "workload:\n  keys: 20\n  prompt: {system_tokens: 64, new_tokens: {kind: uniform, "
              "min: 10, max: 20}}\n  output_tokens: 8\n",
              "workload:\n  trace: {format: mooncake, file: "
              "../shared/traces/mooncake/conversation_trace.jsonl, timing: native}\n");
  Scenario s = LoadScenarioText(native, "s.yaml");
  EXPECT_EQ(s.workload.trace.timing, models::TraceConfig::Timing::kNative);
  ASSERT_EQ(s.qps.size(), 1u);
  EXPECT_NEAR(s.qps[0], 12030.0 / 3537.0, 1e-3);
  EXPECT_EQ(s.reference_qps, s.qps[0]);
  EXPECT_NE(ErrorOf(native, {"sweep={qps: [1, 2]}"})
                .find("'sweep.qps': workload.trace.timing is native: the trace is replayed at its "
                      "own rate, 3.4011884"),
            std::string::npos);
  EXPECT_NE(ErrorOf(native, {"sweep={precision_qps: 0.5}"}).find("'sweep.precision_qps'"),
            std::string::npos);
  EXPECT_EQ(LoadScenarioText(native, "s.yaml", {"sweep={baseline: flat_lb}"}).baseline, "flat_lb");
  EXPECT_NE(ErrorOf(native, {"workload.trace.timing=fast"})
                .find("'workload.trace.timing': unknown timing 'fast' (valid: scaled, native)"),
            std::string::npos);
  // Scaled timing (the default) still needs its load grid.
  EXPECT_NE(ErrorOf(native, {"workload.trace.timing=scaled"}).find("'sweep'"), std::string::npos);
}

}  // namespace
}  // namespace kvroute::sim

namespace kvroute::sim {
namespace {

constexpr const char* kTwoDeployments = R"(deployments:
    - {name: old, replicas: 2, weight: 1, schedule: [{at_s: 30, weight: 0}]}
    - name: new
      replicas: 3
      weight: 0
      schedule: [{at_s: 10, weight: 9}, {at_s: 30, weight: 10}]
  lambda_h: 10)";

TEST(ScenarioLoaderTest, SeveralDeploymentsWithWeightSchedules) {
  Scenario s = LoadScenarioText(
      Replace(kMinimal, "deployments: [{name: main, replicas: 2}]", kTwoDeployments), "s.yaml");
  ASSERT_EQ(s.deployments.size(), 2u);
  EXPECT_EQ(s.replica_count(), 5u);
  EXPECT_EQ(s.lambda_h, 10);
  EXPECT_EQ(s.deployments[1].WeightAt(0), 0);
  EXPECT_EQ(s.deployments[1].WeightAt(10), 9);
  EXPECT_EQ(s.deployments[1].WeightAt(29.9), 9);
  EXPECT_EQ(s.deployments[1].WeightAt(30), 10);
  EXPECT_EQ(s.deployments[0].WeightAt(30), 0);
}

TEST(ScenarioLoaderTest, WeightStepsOutOfOrderAndRepeatedNamesAreErrors) {
  std::string text = Replace(kMinimal, "deployments: [{name: main, replicas: 2}]", kTwoDeployments);
  std::string error = ErrorOf(Replace(text, "{at_s: 30, weight: 10}", "{at_s: 5, weight: 10}"));
  EXPECT_NE(error.find("s.yaml:13: key 'cluster.deployments[1].schedule[1].at_s': steps must be in "
                       "strictly increasing"),
            std::string::npos)
      << error;
  error = ErrorOf(Replace(text, "name: new", "name: old"));
  EXPECT_NE(error.find("key 'cluster.deployments[1].name': deployment 'old' is listed twice"),
            std::string::npos)
      << error;
}

}  // namespace
TEST(ScenarioLoaderTest, LabelsListOnePolicyWithSeveralParameterSets) {
  std::string text = Replace(kMinimal, "  - {name: cacheroute, q_cap: 5}",
                             "  - {name: cacheroute, q_cap: 5}\n"
                             "  - {name: cacheroute, label: affinity_only, ablation: affinity}\n"
                             "sweep: {qps: [1, 2, 4], baseline: affinity_only}");
  text = Replace(text, "sweep: {qps: [1, 2, 4]}\n", "");
  Scenario s = LoadScenarioText(text, "s.yaml");
  ASSERT_EQ(s.policies.size(), 3u);
  EXPECT_EQ(s.policies[1].label, "cacheroute");
  EXPECT_EQ(s.policies[2].name, "cacheroute");
  EXPECT_EQ(s.policies[2].label, "affinity_only");
  EXPECT_EQ(s.policies[2].params.size(), 1u);  // the label is not a parameter
  EXPECT_EQ(s.baseline, "affinity_only");

  std::string error = ErrorOf(Replace(kMinimal, "  - {name: cacheroute, q_cap: 5}",
                                      "  - {name: cacheroute, q_cap: 5}\n"
                                      "  - {name: cacheroute, q_cap: 9}"));
  EXPECT_NE(error.find("policy 'cacheroute' is listed twice (give one a different 'label')"),
            std::string::npos)
      << error;
}

}  // namespace kvroute::sim
