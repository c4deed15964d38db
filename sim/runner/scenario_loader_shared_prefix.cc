// workload.shared_prefix: inference-perf's shared-prefix workload
// (models/shared_prefix_source.h), written inline or read from the `data`
// section of an inference-perf config file (kubernetes-sigs/inference-perf,
// inference_perf/config/datagen/config.py SharedPrefix: num_groups alias
// num_unique_system_prompts, num_prompts_per_group alias
// num_users_per_system_prompt, system_prompt_len, question_len and output_len,
// each a count or a Distribution of inference_perf/config/common.py, the
// older question_distribution / output_distribution, and
// enable_multi_turn_chat, models/shared_prefix_chat.h).
#include <cmath>
#include <tuple>

#include "sim/core/input_file.h"
#include "sim/core/yaml_document.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kMaxTokens = 1e7;
constexpr double kMaxPrompts = 1e7;
constexpr double kMaxChatUsers = 1e6;
using Length = models::InferencePerfLength;

// inference-perf's own defaults (config.py), for keys its file leaves out.
const YamlKeyTable& InferencePerfKeys() {
  static const YamlKeyTable table{
      "data.shared_prefix",
      {IntegerKey("num_groups", 10, 1, 1e6, "system prompts"),
       IntegerKey("num_unique_system_prompts", 10, 1, 1e6, "alias of num_groups"),
       IntegerKey("num_prompts_per_group", 10, 1, 1e6, "questions per system prompt"),
       IntegerKey("num_users_per_system_prompt", 10, 1, 1e6, "alias of num_prompts_per_group"),
       NestedKey("system_prompt_len", YamlType::kLength, "100",
                 "system prompt tokens: a count or a distribution, drawn per group"),
       NestedKey("question_len", YamlType::kLength, "50",
                 "question tokens: a count or a distribution, drawn per prompt"),
       NestedKey("output_len", YamlType::kLength, "50",
                 "output tokens: a count or a distribution, drawn per prompt"),
       NestedKey("question_distribution", YamlType::kMap, "null",
                 "the question lengths' distribution when question_len is a count"),
       NestedKey("output_distribution", YamlType::kMap, "null",
                 "the output lengths' distribution when output_len is a count"),
       IntegerKey("seed", 0, 0, 1e18, "read and not used: kvroute draws from the scenario's seed"),
       BoolKey("enable_multi_turn_chat", false,
               "each prompt is a user whose rounds re-send the conversation so far")}};
  return table;
}

}  // namespace

const ChoiceTable<models::InferencePerfLength::Type>& InferencePerfDistributionTypes() {
  using Length = models::InferencePerfLength;
  static const ChoiceTable<Length::Type> table("distribution type",
                                               {{"normal", Length::Type::kNormal},
                                                {"skew_normal", Length::Type::kSkewNormal},
                                                {"lognormal", Length::Type::kLognormal},
                                                {"uniform", Length::Type::kUniform},
                                                {"poisson", Length::Type::kPoisson},
                                                {"fixed", Length::Type::kFixed}});
  return table;
}

// inference-perf's Distribution, with its defaults (config/common.py).
const YamlKeyTable& InferencePerfDistributionKeys() {
  static const YamlKeyTable table{
      "(an inference-perf length distribution)",
      {ChoiceKey("type", InferencePerfDistributionTypes().names(), "normal",
                 "the family, as inference-perf samples it"),
       IntegerKey("min", 10, 0, kMaxTokens, "draws below are clipped to it"),
       IntegerKey("max", 1024, 0, kMaxTokens, "draws above are clipped to it"),
       NumberKey("mean", 512, -kMaxTokens, kMaxTokens,
                 "mean (skew_normal: location; poisson: lambda; fixed: the count)"),
       NumberKey("std_dev", 200, 0, kMaxTokens,
                 "standard deviation (skew_normal: scale); exclusive with variance"),
       NumberKey("variance", 0, 0, kMaxTokens * kMaxTokens,
                 "std_dev squared; inference-perf requires std_dev: 0 beside it"),
       NumberKey("skew", 0, -1e3, 1e3, "skew_normal's shape (alpha)"),
       IntegerKey("total_count", 0, 0, 1e12, "read and not used, as by the shared-prefix data")}};
  return table;
}

namespace {

// A count, or a Distribution map; `least` is the smallest length allowed.
Length ParseLengthOf(const YamlMap& parent, const YAML::Node& node, const std::string& path,
                     double least) {
  if (node.IsScalar()) {
    double count = 0;
    if (!YAML::convert<double>::decode(node, count) || count != std::floor(count) ||
        count < least || count > kMaxTokens) {
      parent.FailAt(node, path,
                    "expected a whole number of tokens in [" + FormatYamlNumber(least) + ", " +
                        FormatYamlNumber(kMaxTokens) +
                        "] or a distribution map {type, min, "
                        "max, mean, std_dev, ...}");
    }
    return Length::Fixed(count);
  }
  YamlMap m(parent.shared_source(), node, path, &InferencePerfDistributionKeys());
  Length d;
  d.type = m.Choice("type", InferencePerfDistributionTypes());
  d.min = static_cast<double>(m.Integer("min"));
  d.max = static_cast<double>(m.Integer("max"));
  d.mean = m.Number("mean");
  d.std_dev = m.Number("std_dev");
  d.skew = m.Number("skew");
  m.Integer("total_count");
  if (YAML::Node v = m.Take("variance"); v.IsDefined()) {
    // config/common.py validate_distribution: std_dev defaults to 200, so a
    // variance needs an explicit std_dev: 0.
    if (d.std_dev > 0) m.Fail("variance", "give either std_dev or variance, not both");
    d.std_dev = std::sqrt(m.Number("variance", 0, 0, kMaxTokens * kMaxTokens));
  }
  if (d.min > d.max) m.Fail("min", "cannot be greater than max");
  if (d.type == Length::Type::kLognormal && d.mean <= 0) {
    m.Fail("mean", "a lognormal distribution needs mean > 0");
  }
  const double lowest = d.fixed() ? std::trunc(d.mean) : d.min;
  if (lowest < least) {
    m.Fail(d.fixed() ? "mean" : "min",
           "a length here must be at least " + FormatYamlNumber(least) + " tokens");
  }
  if (d.fixed() && d.mean > kMaxTokens) m.Fail("mean", "more than " + FormatYamlNumber(kMaxTokens));
  m.Finish();
  return d;
}

// `key` as a count or distribution; with `legacy`, inference-perf's older
// `<x>_distribution` key, used when `key` is a count.
Length ParseLengthKey(YamlMap& m, const std::string& key, const char* legacy, double least,
                      double fallback) {
  YAML::Node value = m.Take(key);
  YAML::Node old = legacy != nullptr ? m.Take(legacy) : YAML::Node();
  const bool has_old = old.IsDefined() && !old.IsNull();
  if (has_old && value.IsDefined() && value.IsMap()) {
    m.FailAt(old, m.Child(legacy), "give the distribution in " + key + " or here, not both");
  }
  if (has_old) return ParseLengthOf(m, old, m.Child(legacy), least);
  if (!value.IsDefined()) return Length::Fixed(fallback);
  return ParseLengthOf(m, value, m.Child(key), least);
}

// One of a key and its alias, not both.
uint64_t Either(YamlMap& m, const std::string& key, const std::string& alias) {
  const bool a = m.node()[key].IsDefined(), b = m.node()[alias].IsDefined();
  if (a && b) m.Fail(alias, "the same as " + key + "; give one of them");
  return b ? m.Integer(alias) : m.Integer(key);
}

// Every prompt is kept (and, with multi-turn chat, every user's
// conversation): their number is bounded, and a failure names `key`.
void CheckPrompts(YamlMap& m, const models::SharedPrefixConfig& c, const std::string& key) {
  const double prompts = static_cast<double>(c.groups) * c.prompts_per_group;
  const double most = c.multi_turn_chat ? kMaxChatUsers : kMaxPrompts;
  if (prompts > most) {
    m.Fail(key, "groups × prompts per group is " + FormatYamlNumber(prompts) + ", more than " +
                    FormatYamlNumber(most) +
                    (c.multi_turn_chat ? " users with multi-turn chat" : " prompts"));
  }
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
  // inference-perf's defaults: 100, 50 and 50 tokens.
  c->system_tokens = ParseLengthKey(m, "system_prompt_len", nullptr, 0, 100);
  c->question_tokens = ParseLengthKey(m, "question_len", "question_distribution", 1, 50);
  c->output_tokens = ParseLengthKey(m, "output_len", "output_distribution", 1, 50);
  m.Integer("seed");
  c->multi_turn_chat = m.Bool("enable_multi_turn_chat");
  CheckPrompts(m, *c,
               m.node()["num_prompts_per_group"].IsDefined() ? "num_prompts_per_group"
                                                             : "num_users_per_system_prompt");
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
       NestedKey("system_tokens", YamlType::kLength, "100",
                 "each group's system prompt: a count or an inference-perf distribution")
           .When("no file"),
       NestedKey("question_tokens", YamlType::kLength, "447",
                 "each question: a count or an inference-perf distribution")
           .When("no file"),
       NestedKey("output_tokens", YamlType::kLength, "248",
                 "each output: a count or an inference-perf distribution")
           .When("no file"),
       BoolKey("enable_multi_turn_chat", d.multi_turn_chat,
               "inference-perf's multi-turn chat: each prompt is a user whose rounds re-send "
               "the conversation so far (docs/WORKLOADS.md)")
           .When("no file")}};
  return table;
}

void ParseSharedPrefix(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  YamlMap m = w.Map("shared_prefix", &SharedPrefixKeys());
  models::SharedPrefixConfig& p = c->shared_prefix;
  if (m.node()["file"].IsDefined()) {
    for (const char* key : {"groups", "prompts_per_group", "system_tokens", "question_tokens",
                            "output_tokens", "enable_multi_turn_chat"}) {
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
    for (auto [key, length, least] : {std::tuple{"system_tokens", &p.system_tokens, 0.0},
                                      std::tuple{"question_tokens", &p.question_tokens, 1.0},
                                      std::tuple{"output_tokens", &p.output_tokens, 1.0}}) {
      if (YAML::Node n = m.Take(key); n.IsDefined())
        *length = ParseLengthOf(m, n, m.Child(key), least);
    }
    p.multi_turn_chat = m.Bool("enable_multi_turn_chat");
    CheckPrompts(m, p, "prompts_per_group");
  }
  m.Finish();
}

}  // namespace kvroute::sim::scenario
