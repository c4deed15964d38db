#include "models/profile.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/builtin_data.h"
#include "models/calibration.h"
#include "models/catalog.h"
#include "sim/core/yaml_map.h"

namespace kvroute::models {
namespace {

Dtype ParseDtypeKey(sim::YamlMap& map, const std::string& key, Dtype fallback) {
  std::string name = map.String(key, DtypeName(fallback));
  std::optional<Dtype> d = ParseDtype(name);
  if (!d) {
    map.Fail(key, "unknown dtype '" + name + "' (valid: " + std::string(kValidDtypes) + ")");
  }
  return *d;
}

// A model or GPU named by `key`: a built-in name or a .yaml path (relative to
// `base_dir` when given). Lookup errors are reported at the key.
template <typename T, typename Find>
T FindAt(sim::YamlMap& map, const std::string& key, const std::string& base_dir, Find find,
         std::string* ref) {
  map.Required(key);
  std::string name = map.String(key, "");
  *ref = name;
  if (!base_dir.empty() && name.ends_with(".yaml") && name.front() != '/') {
    name = base_dir + "/" + name;
  }
  try {
    return find(name);
  } catch (const std::invalid_argument& e) {
    map.Fail(key, e.what());
  }
}

void ParseEngine(sim::YamlMap map, EngineSettings* e) {
  std::string entry = map.String("entry_point", EntryPointName(e->entry_point));
  if (std::optional<EntryPoint> parsed = ParseEntryPoint(entry)) {
    e->entry_point = *parsed;
  } else {
    map.Fail("entry_point",
             "unknown entry point '" + entry + "' (valid: " + std::string(kValidEntryPoints) + ")");
  }
  e->max_num_seqs = static_cast<int>(map.Integer("max_num_seqs", e->max_num_seqs, 1, 1 << 20));
  e->max_num_batched_tokens = static_cast<int>(
      map.Integer("max_num_batched_tokens", e->max_num_batched_tokens, 1, 1 << 24));
  e->gpu_memory_utilization =
      map.Number("gpu_memory_utilization", e->gpu_memory_utilization, 1e-3, 1);
  e->block_size_tokens =
      static_cast<int>(map.Integer("block_size_tokens", e->block_size_tokens, 1, 4096));
  e->cache_generated_tokens = map.Bool("cache_generated_tokens", e->cache_generated_tokens);
  e->async_scheduling = map.Bool("async_scheduling", e->async_scheduling);
  e->cudagraph_max_tokens =
      static_cast<int>(map.Integer("cudagraph_max_tokens", e->cudagraph_max_tokens, 0, 1 << 24));
  if (map.Bool("enforce_eager", false)) e->cudagraph_max_tokens = -1;
  e->non_torch_bytes = map.Number("non_torch_bytes", e->non_torch_bytes, 0);
  e->cpu_offload_bytes = map.Number("cpu_offload_bytes", e->cpu_offload_bytes, 0);
  map.Finish();
}

std::vector<Profile> LoadBuiltins() {
  std::vector<Profile> profiles;
  for (const BuiltinDataFile& f : BuiltinDataFiles("profiles")) {
    const std::string source = "models/profiles/" + f.file;
    profiles.push_back(ParseProfile(LoadYamlText(f.text, source), source));
  }
  std::sort(profiles.begin(), profiles.end(),
            [](const Profile& a, const Profile& b) { return a.name < b.name; });
  return profiles;
}

}  // namespace

Profile ParseProfile(const YAML::Node& node, const std::string& source, const std::string& path,
                     const std::string& base_dir) {
  sim::YamlMap top(source, node, path);
  Profile p;
  p.file = source;
  p.model = FindAt<ModelArchitecture>(top, "model", base_dir, FindArchitecture, &p.model_ref);
  p.gpu = FindAt<Gpu>(top, "gpu", base_dir, FindGpu, &p.gpu_ref);
  p.tensor_parallel = static_cast<int>(top.Integer("tensor_parallel", 1, 1, 64));
  p.weight_dtype = ParseDtypeKey(top, "weight_dtype", Dtype::kBf16);
  p.kv_dtype =
      ParseDtypeKey(top, "kv_dtype", p.weight_dtype == Dtype::kFp16 ? Dtype::kFp16 : Dtype::kBf16);
  p.name =
      top.String("name", p.model.name + "-" + p.gpu.name + "-tp" +
                             std::to_string(p.tensor_parallel) + "-" + DtypeName(p.weight_dtype));
  p.description = top.String("description", p.name);
  if (YAML::Node engine = top.Take("engine"); engine.IsDefined()) {
    ParseEngine(sim::YamlMap(source, engine, top.Child("engine")), &p.engine);
  }
  if (YAML::Node calibration = top.Take("calibration"); calibration.IsDefined()) {
    ParseCalibration(sim::YamlMap(source, calibration, top.Child("calibration")), &p);
  }
  top.Finish();
  if (p.tensor_parallel > 1 && p.model.heads % p.tensor_parallel != 0) {
    top.Fail("tensor_parallel",
             "must divide the model's " + std::to_string(p.model.heads) + " attention heads");
  }
  return p;
}

int Profile::KvHeadsPerGpu() const { return std::max(1, model.kv_heads / tensor_parallel); }

double Profile::KvBytesPerTokenPerGpu() const {
  return 2.0 * model.layers * KvHeadsPerGpu() * model.head_dim * DtypeBytes(kv_dtype);
}

double Profile::KvBytesPerToken() const { return KvBytesPerTokenPerGpu() * tensor_parallel; }

double Profile::WeightBytes() const { return model.TotalParams() * DtypeBytes(weight_dtype); }

double Profile::ActivationBytesPerGpu() const {
  const EngineSettings e = ResolvedEngine();
  const double mlp = model.moe.enabled() ? (model.moe.active_experts + model.moe.shared_experts) *
                                               static_cast<double>(model.moe.expert_intermediate)
                                         : static_cast<double>(model.intermediate);
  const double per_token = 2.0 * (2.0 * model.hidden + 2.0 * mlp / tensor_parallel);
  const double rows = std::min(e.max_num_batched_tokens, e.max_num_seqs);
  return e.max_num_batched_tokens * per_token + rows * model.vocab * 4.0 * 2;
}

double Profile::KvPoolBytesPerGpu() const {
  const EngineSettings e = ResolvedEngine();
  return gpu.memory_bytes * e.gpu_memory_utilization -
         (WeightBytes() / tensor_parallel - e.cpu_offload_bytes) - ActivationBytesPerGpu() -
         e.non_torch_bytes;
}

int64_t Profile::KvCapacityBlocks() const {
  const double usable = KvPoolBytesPerGpu();
  if (usable <= 0) return 0;
  const double block = ResolvedEngine().block_size_tokens * KvBytesPerTokenPerGpu();
  return std::max<int64_t>(0, static_cast<int64_t>(std::floor(usable / block)) - 1);
}

const std::vector<Profile>& BuiltinProfiles() {
  static const std::vector<Profile> profiles = LoadBuiltins();
  return profiles;
}

Profile FindProfile(std::string_view name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") {
    const std::string path(name);
    return ParseProfile(LoadYamlText(ReadDataFile(path), path), path);
  }
  std::string valid;
  for (const Profile& p : BuiltinProfiles()) {
    if (p.name == name) return p;
    valid += (valid.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown profile '" + std::string(name) + "' (valid: " + valid +
                              ", or a path to a profile .yaml file" +
                              sim::DidYouMean(name, sim::SplitNames(valid)) + ")");
}

}  // namespace kvroute::models
