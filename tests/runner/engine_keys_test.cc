// cluster.engine, inline profiles and closed-loop arrivals as a scenario
// states them.
#include <gtest/gtest.h>

#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

const char kBase[] = R"(name: engine
duration_s: 60
warmup_s: 10
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 2}]
workload:
  keys: 20
  prompt: {system_tokens: 64, new_tokens: 16}
  output_tokens: 8
policies: [flat_lb]
sweep: {qps: [1, 2]}
slo: [{metric: ttft, percentile: 99, threshold_s: 1}]
)";

Scenario LoadWithEngine(const std::vector<std::string>& overrides) {
  return LoadScenarioText(kBase, "s.yaml", overrides);
}

std::string EngineErrorOf(const std::vector<std::string>& overrides) {
  try {
    LoadWithEngine(overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(EngineKeysTest, WithoutEngineKeysTheSchedulerTakesVllmsDefaultsForTheGpu) {
  Scenario s = LoadWithEngine({});
  EXPECT_EQ(s.scheduler.max_num_seqs, 1024);            // H100, vllm serve
  EXPECT_EQ(s.scheduler.max_num_batched_tokens, 8192);  // likewise
  EXPECT_TRUE(s.scheduler.cache_generated_tokens);
  EXPECT_TRUE(s.scheduler.async_scheduling);
}

TEST(EngineKeysTest, EngineKeysOverrideTheDefaultsAndSizeTheKvPool) {
  Scenario s =
      LoadWithEngine({"cluster.engine={max_num_seqs: 64, max_num_batched_tokens: 2048, "
                      "cache_generated_tokens: false, async_scheduling: false, "
                      "gpu_memory_utilization: 0.8}"});
  EXPECT_EQ(s.scheduler.max_num_seqs, 64);
  EXPECT_EQ(s.scheduler.max_num_batched_tokens, 2048);
  EXPECT_FALSE(s.scheduler.cache_generated_tokens);
  EXPECT_FALSE(s.scheduler.async_scheduling);
  EXPECT_LT(s.resolved_profile.KvCapacityBlocks(),
            LoadWithEngine({}).resolved_profile.KvCapacityBlocks());
  EXPECT_EQ(LoadWithEngine({"cluster.engine={entry_point: other}"}).scheduler.max_num_seqs, 128);
}

TEST(EngineKeysTest, AFixedCostModelSchedulesSynchronously) {
  Scenario s = LoadWithEngine({"cluster.cost_model={kind: fixed, iteration_s: 0.01}"});
  EXPECT_FALSE(s.scheduler.async_scheduling);
}

TEST(EngineKeysTest, TheOldSchedulerKeyNamesItsReplacement) {
  EXPECT_NE(EngineErrorOf({"cluster.scheduler={max_num_seqs: 4}"}).find("renamed cluster.engine"),
            std::string::npos);
  EXPECT_NE(EngineErrorOf({"cluster.engine={max_num_seq: 4}"}).find("did you mean 'max_num_seqs'"),
            std::string::npos);
}

TEST(EngineKeysTest, AnInlineProfileIsModelTimesGpu) {
  Scenario s =
      LoadWithEngine({"cluster.profile={model: qwen3-32b, gpu: h200-sxm, tensor_parallel: 2, "
                      "weight_dtype: fp8}"});
  EXPECT_EQ(s.resolved_profile.model.name, "qwen3-32b");
  EXPECT_EQ(s.resolved_profile.gpu.name, "h200-sxm");
  EXPECT_EQ(s.resolved_profile.tensor_parallel, 2);
  EXPECT_NE(EngineErrorOf({"cluster.profile={model: qwen3-33b, gpu: h200-sxm}"})
                .find("key 'cluster.profile.model': unknown model 'qwen3-33b'"),
            std::string::npos);
}

TEST(EngineKeysTest, ClosedLoopArrivals) {
  Scenario s =
      LoadWithEngine({"workload.arrivals={kind: closed_loop, clients: 12, think_time_s: 0.5, "
                      "max_requests: 100, ramp_s: 2}"});
  EXPECT_TRUE(s.workload.closed_loop.enabled);
  EXPECT_EQ(s.workload.closed_loop.clients, 12u);
  EXPECT_EQ(s.workload.closed_loop.think_time_s.value, 0.5);
  EXPECT_EQ(s.workload.closed_loop.max_requests, 100u);
  EXPECT_EQ(s.workload.closed_loop.ramp_s, 2);
  // Without a count, the sweep's loads count clients.
  EXPECT_EQ(LoadWithEngine({"workload.arrivals={kind: closed_loop}"}).workload.closed_loop.clients,
            0u);
  EXPECT_NE(EngineErrorOf({"workload.arrivals={kind: closed_loop}", "workload.drift={sigma: 0.3}"})
                .find("key 'workload.drift': cannot be combined with closed-loop arrivals"),
            std::string::npos);
}

}  // namespace
}  // namespace kvroute::sim
