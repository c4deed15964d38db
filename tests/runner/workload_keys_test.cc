// Scenario keys of docs/WORKLOADS.md: inference-perf's shared-prefix spec,
// empirical lengths from a file, traces of any format, each read into the
// configuration it names, with files relative to the scenario.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"

namespace kvroute::sim {
namespace {

namespace fs = std::filesystem;

const char kHead[] = R"(name: keys
seed: 1
duration_s: 30
warmup_s: 0
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 2}]
policies: [round_robin]
sweep: {qps: [4]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
workload:
)";

// A directory holding the scenario and its files.
class WorkloadKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  Scenario Load(const std::string& workload) {
    Write("s.yaml", std::string(kHead) + workload);
    return LoadScenarioFile((dir_ / "s.yaml").string());
  }
  std::string ErrorOf(const std::string& workload) {
    try {
      Load(workload);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path dir_;
};

TEST_F(WorkloadKeysTest, SharedPrefixInline) {
  const Scenario s = Load(
      "  shared_prefix: {groups: 4, prompts_per_group: 3, system_tokens: 64, question_tokens: 20, "
      "output_tokens: 5}\n");
  const models::SharedPrefixConfig& p = s.workload.shared_prefix;
  EXPECT_EQ(p.groups, 4u);
  EXPECT_EQ(p.prompts_per_group, 3u);
  EXPECT_EQ(p.system_tokens, 64u);
  EXPECT_EQ(p.question_tokens, 20u);
  EXPECT_EQ(p.output_tokens, 5u);
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 4, 1});
  EXPECT_GT(r.completed, 60u);
  EXPECT_GT(r.token_hit_rate, 0.5);  // 64 + 20 tokens, 4 system prompts, 12 prompts in all
}

// inference-perf's own config file, aliases included; the rest of the file
// (load, api, server) is inference-perf's business.
TEST_F(WorkloadKeysTest, SharedPrefixFromAnInferencePerfConfig) {
  Write("ip.yaml", R"(load:
  type: constant
  stages: [{rate: 1, duration: 15}]
api: {type: completion, streaming: true}
data:
  type: shared_prefix
  shared_prefix:
    num_unique_system_prompts: 150
    num_prompts_per_group: 5
    system_prompt_len: 6000
    question_len: 1200
    output_len: 1000
    enable_multi_turn_chat: false
)");
  const Scenario s = Load("  shared_prefix: {file: ip.yaml}\n");
  const models::SharedPrefixConfig& p = s.workload.shared_prefix;
  EXPECT_EQ(p.groups, 150u);
  EXPECT_EQ(p.prompts_per_group, 5u);
  EXPECT_EQ(p.system_tokens, 6000u);
  EXPECT_EQ(p.question_tokens, 1200u);
  EXPECT_EQ(p.output_tokens, 1000u);
  // Printed inline, it loads back the same.
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_EQ(ResolvedScenarioYaml(LoadScenarioText(printed, "printed", {}, "/")), printed);

  Write("ip.yaml",
        "data:\n  type: shared_prefix\n  shared_prefix: {num_groups: 2, "
        "num_unique_system_prompts: 3}\n");
  std::string e = ErrorOf("  shared_prefix: {file: ip.yaml}\n");
  EXPECT_NE(e.find("key 'workload.shared_prefix.file'"), std::string::npos) << e;
  EXPECT_NE(e.find("ip.yaml:3: key 'data.shared_prefix.num_unique_system_prompts'"),
            std::string::npos)
      << e;
  Write("ip.yaml",
        "data:\n  type: shared_prefix\n  shared_prefix: {num_groups: 2, "
        "question_distribution: {min: 1}}\n");
  e = ErrorOf("  shared_prefix: {file: ip.yaml}\n");
  EXPECT_NE(e.find("length distributions are not supported"), std::string::npos) << e;
  Write("ip.yaml", "data:\n  type: random\n");
  e = ErrorOf("  shared_prefix: {file: ip.yaml}\n");
  EXPECT_NE(e.find("ip.yaml:2: key 'data.type': expected shared_prefix"), std::string::npos) << e;
  e = ErrorOf("  shared_prefix: {groups: 2}\n  keys: 10\n");
  EXPECT_NE(e.find("key 'workload.keys': shared_prefix replaces"), std::string::npos) << e;
}

TEST_F(WorkloadKeysTest, EmpiricalLengthsFromAFileColumn) {
  Write("lengths.csv", "id,Response tokens\n1,10\n2,30\n3,30\n");
  const Scenario s = Load(
      "  keys: 5\n  output_tokens: {kind: empirical, file: lengths.csv, column: Response "
      "tokens}\n");
  const models::LengthDistribution& d = s.workload.output_tokens;
  ASSERT_EQ(d.values, (std::vector<double>{10, 30}));
  EXPECT_DOUBLE_EQ(d.Mean(), (10 + 30 + 30) / 3.0);
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_EQ(ResolvedScenarioYaml(LoadScenarioText(printed, "printed", {}, "/")), printed);
}

TEST_F(WorkloadKeysTest, TraceFormatIsDetected) {
  Write("t.csv",
        "time_s,prompt_tokens,output_tokens,session\n0,100,10,a\n1,150,10,a\n2.5,80,4,b\n");
  const Scenario s = Load("  trace: {file: t.csv, loop: true}\n");
  EXPECT_EQ(s.workload.trace.format, models::TraceConfig::Format::kAuto);
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 4, 1});
  EXPECT_GT(r.offered, 100u);  // 4 QPS for 30 s, the trace looped
}

}  // namespace
}  // namespace kvroute::sim
