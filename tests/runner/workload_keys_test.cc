// Scenario keys of docs/WORKLOADS.md: inference-perf's shared-prefix spec,
// empirical lengths from a file, traces of any format, each read into the
// configuration it names, with files relative to the scenario.
#include <gtest/gtest.h>

#include <string>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

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
  void Write(const std::string& name, const std::string& text) { dir_.Write(name, text); }
  Scenario Load(const std::string& workload) { return dir_.Load(std::string(kHead) + workload); }
  std::string ErrorOf(const std::string& workload) {
    try {
      Load(workload);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no error)";
  }
  const TestDirectory dir_{"workload_keys"};
};

TEST_F(WorkloadKeysTest, SharedPrefixInline) {
  const Scenario s = Load(
      "  shared_prefix: {groups: 4, prompts_per_group: 3, system_tokens: 64, question_tokens: 20, "
      "output_tokens: 5}\n");
  const models::SharedPrefixConfig& p = s.workload.shared_prefix;
  EXPECT_EQ(p.groups, 4u);
  EXPECT_EQ(p.prompts_per_group, 3u);
  EXPECT_TRUE(p.system_tokens.fixed() && p.question_tokens.fixed() && p.output_tokens.fixed());
  EXPECT_EQ(p.system_tokens.mean, 64);
  EXPECT_EQ(p.question_tokens.mean, 20);
  EXPECT_EQ(p.output_tokens.mean, 5);
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
  EXPECT_EQ(p.system_tokens.mean, 6000);
  EXPECT_EQ(p.question_tokens.mean, 1200);
  EXPECT_EQ(p.output_tokens.mean, 1000);
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
        "question_len: {type: lognormal, mean: 100}, question_distribution: {min: 1}}\n");
  e = ErrorOf("  shared_prefix: {file: ip.yaml}\n");
  EXPECT_NE(e.find("data.shared_prefix.question_distribution': give the distribution in "
                   "question_len or here, not both"),
            std::string::npos)
      << e;
  Write("ip.yaml", "data:\n  type: random\n");
  e = ErrorOf("  shared_prefix: {file: ip.yaml}\n");
  EXPECT_NE(e.find("ip.yaml:2: key 'data.type': expected shared_prefix"), std::string::npos) << e;
  e = ErrorOf("  shared_prefix: {groups: 2}\n  keys: 10\n");
  EXPECT_NE(e.find("key 'workload.keys': shared_prefix replaces"), std::string::npos) << e;
}

// inference-perf's length distributions (config/common.py Distribution), in
// its file and inline, with its defaults and its validation.
TEST_F(WorkloadKeysTest, SharedPrefixLengthDistributions) {
  Write("ip.yaml", R"(data:
  type: shared_prefix
  shared_prefix:
    seed: 42
    num_groups: 3
    system_prompt_len: 100
    question_len: {type: skew_normal, mean: 200, std_dev: 80, skew: 2.5, min: 10, max: 2000}
    output_len: 64
    output_distribution: {type: poisson, mean: 40}
)");
  const Scenario s = Load("  shared_prefix: {file: ip.yaml}\n");
  const models::SharedPrefixConfig& p = s.workload.shared_prefix;
  using Type = models::InferencePerfLength::Type;
  EXPECT_TRUE(p.system_tokens.fixed());
  EXPECT_EQ(p.question_tokens.type, Type::kSkewNormal);
  EXPECT_EQ(p.question_tokens.skew, 2.5);
  EXPECT_EQ(p.question_tokens.max, 2000);
  // The older key wins over a count, with inference-perf's defaults filled in.
  EXPECT_EQ(p.output_tokens.type, Type::kPoisson);
  EXPECT_EQ(p.output_tokens.min, 10);
  EXPECT_EQ(p.output_tokens.max, 1024);
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_EQ(ResolvedScenarioYaml(LoadScenarioText(printed, "printed", {}, "/")), printed);
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 4, 1});
  EXPECT_GT(r.completed, 10u);

  const Scenario inline_form = Load(
      "  shared_prefix: {groups: 2, question_tokens: {type: uniform, min: 5, max: 9}, "
      "output_tokens: {type: normal, mean: 30, std_dev: 5, min: 20, max: 40}}\n");
  EXPECT_EQ(inline_form.workload.shared_prefix.question_tokens.type, Type::kUniform);

  auto error = [&](const std::string& length) {
    return ErrorOf("  shared_prefix: {groups: 2, question_tokens: " + length + "}\n");
  };
  EXPECT_NE(error("{type: normal, variance: 100}").find("either std_dev or variance"),
            std::string::npos);
  EXPECT_NE(error("{type: lognormal, mean: 0}").find("needs mean > 0"), std::string::npos);
  EXPECT_NE(error("{min: 50, max: 40}").find("cannot be greater than max"), std::string::npos);
  EXPECT_NE(error("{type: normal, min: 0}").find("at least 1 tokens"), std::string::npos);
  EXPECT_NE(error("{type: gauss}").find("type"), std::string::npos);
  EXPECT_NE(error("{type: normal, sd: 3}").find("sd"), std::string::npos);
  EXPECT_NE(error("12.5").find("whole number"), std::string::npos);
  EXPECT_EQ(error("{type: normal, std_dev: 0, variance: 100}"), "(no error)");
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
