// `cluster.engine`: the serving engine's arguments (vLLM's names), over the
// profile's own; a key left out keeps vLLM's default for the GPU and entry
// point (models/engine.h). The replicas' scheduler is built from the result.
#include <functional>
#include <vector>

#include "models/engine.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const ChoiceTable<models::EntryPoint>& EntryPoints() {
  using models::EntryPoint;
  static const ChoiceTable<EntryPoint> table("entry point", {{"api_server", EntryPoint::kApiServer},
                                                             {"llm_class", EntryPoint::kLlmClass},
                                                             {"other", EntryPoint::kOther}});
  return table;
}

const YamlKeyTable& EngineKeys() {
  static const models::EngineSettings d;
  static const YamlKeyTable table{
      "cluster.engine",
      {ChoiceKey("entry_point", EntryPoints().names(), EntryPoints().NameOf(d.entry_point),
                 "how vLLM was started (vllm serve, the LLM class, other): picks its defaults"),
       IntegerKey("max_num_seqs", 0, 1, 1 << 20, "running sequences per replica")
           .Default("vLLM's for the GPU and entry point"),
       IntegerKey("max_num_batched_tokens", 0, 1, 1 << 24,
                  "per-iteration token budget of decodes and prefill chunks")
           .Default("vLLM's for the GPU and entry point"),
       NumberKey("gpu_memory_utilization", d.gpu_memory_utilization, 1e-3, 1,
                 "share of GPU memory vLLM may use; the KV pool is what weights and "
                 "activations leave of it"),
       IntegerKey("block_size_tokens", d.block_size_tokens, 1, 4096, "tokens per KV block"),
       BoolKey("cache_generated_tokens", d.cache_generated_tokens,
               "full blocks of generated tokens join the prefix cache (vLLM v1, SGLang)"),
       BoolKey("async_scheduling", d.async_scheduling,
               "the next batch forms while this one runs (vLLM >= 0.14)"),
       IntegerKey("cudagraph_max_tokens", 0, 1, 1 << 24,
                  "largest iteration replayed as a CUDA graph; larger ones launch eagerly")
           .Default("min(2 x max_num_seqs, 512, max_num_batched_tokens)"),
       BoolKey("enforce_eager", false, "no CUDA graphs at all (--enforce-eager)"),
       NumberKey("cpu_offload_gb", 0, 0, 1e4,
                 "GiB of weights per GPU kept in host memory (--cpu-offload-gb): more KV room")}};
  return table;
}

void ParseEngine(YamlMap& cluster, Scenario* s) {
  // Each argument given is applied to the cluster's profile and to every
  // deployment's own one: the engine is launched with the same flags on
  // every GPU kind, and what is left at 0 resolves on each GPU.
  std::vector<std::function<void(models::EngineSettings&)>> given;
  if (cluster.Take("engine").IsDefined()) {
    YamlMap m = cluster.Map("engine", &EngineKeys());
    auto defined = [&](const char* key) {
      if (YamlAt(m.node(), key).IsDefined()) return true;
      m.Take(key);
      return false;
    };
    if (defined("entry_point")) {
      given.push_back([v = m.Choice("entry_point", EntryPoints())](auto& e) { e.entry_point = v; });
    }
    auto integer = [&](const char* key, int models::EngineSettings::*field) {
      if (!defined(key)) return;
      given.push_back([v = static_cast<int>(m.Integer(key)), field](auto& e) { e.*field = v; });
    };
    auto boolean = [&](const char* key, bool models::EngineSettings::*field) {
      if (!defined(key)) return;
      given.push_back([v = m.Bool(key), field](auto& e) { e.*field = v; });
    };
    integer("max_num_seqs", &models::EngineSettings::max_num_seqs);
    integer("max_num_batched_tokens", &models::EngineSettings::max_num_batched_tokens);
    if (defined("gpu_memory_utilization")) {
      given.push_back(
          [v = m.Number("gpu_memory_utilization")](auto& e) { e.gpu_memory_utilization = v; });
    }
    integer("block_size_tokens", &models::EngineSettings::block_size_tokens);
    boolean("cache_generated_tokens", &models::EngineSettings::cache_generated_tokens);
    boolean("async_scheduling", &models::EngineSettings::async_scheduling);
    integer("cudagraph_max_tokens", &models::EngineSettings::cudagraph_max_tokens);
    if (m.Bool("enforce_eager")) given.push_back([](auto& e) { e.cudagraph_max_tokens = -1; });
    if (defined("cpu_offload_gb")) {
      given.push_back(
          [v = m.Number("cpu_offload_gb") * (1 << 30)](auto& e) { e.cpu_offload_bytes = v; });
    }
    m.Finish();
  }
  for (const auto& apply : given) {
    apply(s->resolved_profile.engine);
    for (DeploymentSpec& d : s->deployments) {
      if (d.profile) apply(d.profile->engine);
    }
  }
  const models::EngineSettings resolved = s->resolved_profile.ResolvedEngine();
  s->scheduler.max_num_batched_tokens = resolved.max_num_batched_tokens;
  s->scheduler.max_num_seqs = resolved.max_num_seqs;
  s->scheduler.cache_generated_tokens = resolved.cache_generated_tokens;
  s->scheduler.async_scheduling = resolved.async_scheduling;
}

}  // namespace kvroute::sim::scenario
