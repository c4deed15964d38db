// workload.shared_prefix: inference-perf's shared-prefix workload
// (models/shared_prefix_source.h), written inline or read from the `data`
// section of an inference-perf config file (kubernetes-sigs/inference-perf,
// inference_perf/config.py SharedPrefix: num_groups alias
// num_unique_system_prompts, num_prompts_per_group alias
// num_users_per_system_prompt, system_prompt_len, question_len, output_len).
#include "sim/core/input_file.h"
#include "sim/core/yaml_document.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kMaxTokens = 1e7;

// inference-perf's own defaults (config.py), for keys its file leaves out.
const YamlKeyTable& InferencePerfKeys() {
  static const YamlKeyTable table{
      "data.shared_prefix",
      {IntegerKey("num_groups", 10, 1, 1e6, "system prompts"),
       IntegerKey("num_unique_system_prompts", 10, 1, 1e6, "alias of num_groups"),
       IntegerKey("num_prompts_per_group", 10, 1, 1e6, "questions per system prompt"),
       IntegerKey("num_users_per_system_prompt", 10, 1, 1e6, "alias of num_prompts_per_group"),
       IntegerKey("system_prompt_len", 100, 0, kMaxTokens, "system prompt tokens"),
       IntegerKey("question_len", 50, 1, kMaxTokens, "question tokens"),
       IntegerKey("output_len", 50, 1, kMaxTokens, "output tokens"),
       NestedKey("question_distribution", YamlType::kMap, "null", "must be null (unsupported)"),
       NestedKey("output_distribution", YamlType::kMap, "null", "must be null (unsupported)"),
       BoolKey("enable_multi_turn_chat", false, "must be false (unsupported)")}};
  return table;
}

// One of a key and its alias, not both.
uint64_t Either(YamlMap& m, const std::string& key, const std::string& alias) {
  const bool a = m.node()[key].IsDefined(), b = m.node()[alias].IsDefined();
  if (a && b) m.Fail(alias, "the same as " + key + "; give one of them");
  return b ? m.Integer(alias) : m.Integer(key);
}

void ReadInferencePerf(const std::string& path, models::SharedPrefixConfig* c) {
  const std::string text = ReadInputFile(path, kScenarioInput);
  auto source = std::make_shared<YamlSource>(path);
  const YAML::Node root = LoadStrictYaml(text, path);
  if (!root.IsMap() || !root["data"].IsMap()) {
    throw YamlError(path + ": expected an inference-perf config with a `data` section");
  }
  const YAML::Node data = root["data"];
  if (!data["type"].IsScalar() || data["type"].Scalar() != "shared_prefix") {
    FailAt(path, data["type"].IsDefined() ? data["type"] : data, "data.type",
           "expected shared_prefix (kvroute reads only inference-perf's shared-prefix data)");
  }
  if (!data["shared_prefix"].IsDefined() || data["shared_prefix"].IsNull()) return;
  YamlMap m(source, data["shared_prefix"], "data.shared_prefix", &InferencePerfKeys());
  c->groups = static_cast<uint32_t>(Either(m, "num_groups", "num_unique_system_prompts"));
  c->prompts_per_group =
      static_cast<uint32_t>(Either(m, "num_prompts_per_group", "num_users_per_system_prompt"));
  c->system_tokens = static_cast<uint32_t>(m.Integer("system_prompt_len"));
  c->question_tokens = static_cast<uint32_t>(m.Integer("question_len"));
  c->output_tokens = static_cast<uint32_t>(m.Integer("output_len"));
  for (const char* key : {"question_distribution", "output_distribution"}) {
    if (YAML::Node n = m.Take(key); n.IsDefined() && !n.IsNull()) {
      m.FailAt(n, m.Child(key), "length distributions are not supported; give fixed lengths");
    }
  }
  if (m.Bool("enable_multi_turn_chat")) {
    m.Fail("enable_multi_turn_chat",
           "not supported; use workload.sessions for multi-turn chat (docs/WORKLOADS.md)");
  }
  m.Finish();
}

}  // namespace

const YamlKeyTable& SharedPrefixKeys() {
  static const models::SharedPrefixConfig d;
  static const YamlKeyTable table{
      "workload.shared_prefix",
      {StringKey("file", "",
                 "an inference-perf config whose data.shared_prefix gives the rest, relative "
                 "to the scenario"),
       IntegerKey("groups", 10, 1, 1e6, "system prompts; each group is a routing key")
           .When("no file"),
       IntegerKey("prompts_per_group", d.prompts_per_group, 1, 1e6, "questions per group")
           .When("no file"),
       IntegerKey("system_tokens", d.system_tokens, 0, kMaxTokens, "each group's system prompt")
           .When("no file"),
       IntegerKey("question_tokens", d.question_tokens, 1, kMaxTokens, "each question")
           .When("no file"),
       IntegerKey("output_tokens", d.output_tokens, 1, kMaxTokens, "each output").When("no file")}};
  return table;
}

void ParseSharedPrefix(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  YamlMap m = w.Map("shared_prefix", &SharedPrefixKeys());
  models::SharedPrefixConfig& p = c->shared_prefix;
  if (m.node()["file"].IsDefined()) {
    for (const char* key :
         {"groups", "prompts_per_group", "system_tokens", "question_tokens", "output_tokens"}) {
      if (m.node()[key].IsDefined()) m.Fail(key, "the file gives it; remove it or the file");
    }
    const std::string path = ResolvePath(m, "file", m.String("file"), ctx.base_dir);
    try {
      ReadInferencePerf(path, &p);
    } catch (const std::runtime_error& e) {
      m.Fail("file", e.what());
    }
  } else {
    p.groups = static_cast<uint32_t>(m.Integer("groups"));
    p.prompts_per_group = static_cast<uint32_t>(m.Integer("prompts_per_group"));
    p.system_tokens = static_cast<uint32_t>(m.Integer("system_tokens"));
    p.question_tokens = static_cast<uint32_t>(m.Integer("question_tokens"));
    p.output_tokens = static_cast<uint32_t>(m.Integer("output_tokens"));
  }
  m.Finish();
}

}  // namespace kvroute::sim::scenario
