// Reads a scenario: the strict YAML document, --set overrides, the top-level
// keys, then each section (scenario_loader_<section>.cc) in document order.
#include "sim/runner/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

#include "sim/core/file_names.h"
#include "sim/core/input_file.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim {
namespace scenario {

std::string ResolvePath(const YamlMap& map, const std::string& key, const std::string& written,
                        const std::filesystem::path& base_dir) {
  if (written.empty()) map.Fail(key, "expected a path");
  std::filesystem::path path(written);
  if (path.is_relative()) {
    // A path given with --set is typed relative to where the command runs.
    path = map.shared_source()->IsOverridden(map.Child(key)) ? std::filesystem::absolute(path)
                                                             : base_dir / path;
  }
  return path.lexically_normal().string();
}

const YamlKeyTable& TopLevelKeys() {
  static const Scenario d;
  static const YamlKeyTable table{
      "",
      {StringKey("name", "", "names the run and its default output <name>.h5").Required(),
       IntegerKey("seed", static_cast<double>(d.seed), 0, 1ULL << 52,
                  "first paired seed; the others follow it"),
       IntegerKey("seeds", d.seeds, 1, 10000, "paired seeds per (policy, load)"),
       NumberKey("duration_s", d.duration_s, 1e-3, 1e7, "arrivals stop at this simulated time"),
       NumberKey("warmup_s", d.warmup_s, 0, 1e7, "requests arriving earlier are not measured"),
       NumberKey("drain_s", d.drain_s, 0, 1e7,
                 "after duration_s, in-flight work may finish for this long"),
       NestedKey("cluster", YamlType::kMap, "", "replicas, profile, scheduler").Required(),
       NestedKey("workload", YamlType::kMap, "", "synthetic requests or a trace").Required(),
       NestedKey("policies", YamlType::kList, "", "the routing policies compared").Required(),
       NestedKey("sweep", YamlType::kMap, "", "the load grid (optional for a native-timing trace)")
           .Required(),
       NestedKey("slo", YamlType::kList, "", "list of {metric, percentile, threshold_s}")
           .Required(),
       NestedKey("failures", YamlType::kMap, "none", "replica failures and retries")}};
  return table;
}

void ParseTopLevel(YamlMap& top, Scenario* s) {
  s->name = top.String("name");
  if (std::string problem = FileNameProblem(s->name); !problem.empty()) {
    top.Fail("name", "'" + EscapeForMessage(s->name) +
                         "' becomes the output file <name>.h5, and it " + problem);
  }
  s->seed = top.Integer("seed");
  s->seeds = static_cast<uint32_t>(top.Integer("seeds"));
  s->duration_s = top.Number("duration_s");
  s->warmup_s = top.Number("warmup_s");
  s->drain_s = top.Number("drain_s");
  if (s->warmup_s >= s->duration_s) top.Fail("warmup_s", "must be less than duration_s");
}

}  // namespace scenario

namespace {

void ApplyOverride(YAML::Node root, const std::string& assignment, YamlSource* source) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ScenarioError("--set " + assignment + ": expected path.to.key=value");
  }
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = LoadStrictYaml(assignment.substr(eq + 1), "--set " + path);
  } catch (const YamlError& e) {
    throw ScenarioError(std::string(e.what()) + " (the value of --set is YAML)");
  }
  std::vector<std::string> parts;
  std::stringstream stream(path);
  for (std::string part; std::getline(stream, part, '.');) {
    if (part.empty()) throw ScenarioError("--set " + assignment + ": empty key in path");
    parts.push_back(part);
  }
  // yaml-cpp nodes are handles: walking with operator[] on non-const nodes
  // creates missing maps, so the last assignment lands in the document.
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (next.IsDefined() && !next.IsMap()) {
      throw ScenarioError("--set " + assignment + ": '" + parts[i] + "' is not a map");
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
  source->MarkOverridden(path);
}

Scenario Parse(const std::string& text, const std::string& source_name,
               const std::vector<std::string>& overrides, const std::filesystem::path& base_dir) {
  YAML::Node root = LoadStrictYaml(text, source_name);
  if (root.IsNull()) throw ScenarioError(source_name + ": the scenario is empty");
  if (!root.IsMap()) {
    throw ScenarioError(source_name +
                        ": expected a map of scenario keys (name, cluster, workload, ...) at the "
                        "top level");
  }
  auto source = std::make_shared<YamlSource>(source_name);
  for (const std::string& o : overrides) ApplyOverride(root, o, source.get());

  Scenario s;
  s.source = source_name;
  const scenario::LoadContext ctx{std::filesystem::absolute(base_dir)};
  YamlMap top(source, root, "", &scenario::TopLevelKeys());
  scenario::ParseTopLevel(top, &s);
  scenario::ParseCluster(top, ctx, &s);
  const double native_qps = scenario::ParseWorkload(top, ctx, &s);
  scenario::ParsePolicies(top, &s);
  scenario::ParseSweep(top, &s, native_qps);
  scenario::ParseSlos(top, &s);
  scenario::ParseFailures(top, &s);
  top.Finish();
  s.workload.block_size_tokens = s.resolved_profile.ResolvedEngine().block_size_tokens;

  YAML::Emitter emitter;
  emitter << root;
  s.yaml = emitter.c_str();
  return s;
}

}  // namespace

std::vector<uint64_t> Scenario::SeedList() const {
  std::vector<uint64_t> list;
  for (uint32_t i = 0; i < seeds; ++i) list.push_back(seed + i);
  return list;
}

models::SchedulerConfig Scenario::SchedulerOf(size_t d) const {
  models::SchedulerConfig c = scheduler;
  if (!deployments[d].profile) return c;
  // The cluster's engine arguments resolve on the deployment's own GPU (vLLM's
  // defaults depend on it, models/engine.h).
  const models::EngineSettings e = deployments[d].profile->ResolvedEngine();
  c.max_num_batched_tokens = e.max_num_batched_tokens;
  c.max_num_seqs = e.max_num_seqs;
  c.cache_generated_tokens = e.cache_generated_tokens;
  c.async_scheduling = fixed_iteration_s > 0 ? false : e.async_scheduling;
  return c;
}

uint32_t Scenario::KvBlocksOf(size_t d) const {
  return static_cast<uint32_t>(kv_blocks > 0 ? kv_blocks : ProfileOf(d).KvCapacityBlocks());
}

Scenario LoadScenarioText(const std::string& text, const std::string& source,
                          const std::vector<std::string>& overrides, const std::string& base_dir) {
  try {
    return Parse(
        text, source, overrides,
        base_dir.empty() ? std::filesystem::current_path() : std::filesystem::path(base_dir));
  } catch (const YamlError& e) {
    throw ScenarioError(e.what());
  } catch (const YAML::Exception& e) {
    throw ScenarioError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Scenario LoadScenarioFile(const std::string& path, const std::vector<std::string>& overrides) {
  std::string text;
  try {
    text = ReadInputFile(path, kScenarioInput);
  } catch (const InputFileError& e) {
    throw ScenarioError(e.what());
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return LoadScenarioText(text, path, overrides, dir.empty() ? "." : dir.string());
}

}  // namespace kvroute::sim
