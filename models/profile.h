// A serving destination: a model on a GPU kind at a tensor-parallel degree,
// with its weight and KV dtypes and engine settings (DESIGN.md, "Hardware and
// models as data"). Everything the cost model and the KV pool need follows
// from the architecture, the GPU's datasheet and its fitted efficiencies.
// Profiles are data files (models/profiles/*.yaml, compiled in), a user's own
// file, or a map written inline in a scenario.
#ifndef KVROUTE_MODELS_PROFILE_H_
#define KVROUTE_MODELS_PROFILE_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/architecture.h"
#include "models/dtype.h"
#include "models/engine.h"
#include "models/gpu.h"

namespace kvroute::models {

// One published measurement, and what the cost model must reproduce of it.
struct CalibrationPoint {
  enum class Kind {
    kLinear,       // linear layers alone for `tokens` tokens in one pass
    kPrefill,      // one iteration prefilling `new_tokens` at `context_tokens` total
    kDecode,       // one iteration of `batch` decodes at `context_tokens` each
    kDecodeRange,  // as kDecode, published as a range [min_ms, max_ms]
  };
  Kind kind = Kind::kLinear;
  int tensor_parallel = 0;  // 0: the profile's own
  int tokens = 0;
  int new_tokens = 0;
  int context_tokens = 0;
  int batch = 0;
  double ms = 0;
  double min_ms = 0, max_ms = 0;
  std::string source;
  bool held = true;  // false: shown in the calibration table, not held by tests

  std::string Describe() const;  // "linear, 1024 tokens, TP4"
};

struct Profile {
  std::string name;
  std::string description;
  std::string file;  // where it was read from
  ModelArchitecture model;
  Gpu gpu;
  std::string model_ref, gpu_ref;  // as written: built-in names or paths
  Dtype weight_dtype = Dtype::kBf16;
  // vLLM's kv_cache_dtype "auto" keeps KV in the model's activation dtype
  // (16-bit) even for fp8 weights (vllm/config/cache.py); fp8 KV is a choice.
  Dtype kv_dtype = Dtype::kBf16;
  int tensor_parallel = 1;
  EngineSettings engine;  // as given; 0 means vLLM's default (ResolvedEngine)

  double calibration_tolerance = 0.15;  // held points: |model − published| / published
  std::vector<CalibrationPoint> calibration;

  EngineSettings ResolvedEngine() const { return ResolveEngine(engine, gpu); }
  // KV heads each GPU holds: vLLM replicates heads when TP exceeds them.
  int KvHeadsPerGpu() const;
  double KvBytesPerToken() const;        // all layers, all GPUs of the destination
  double KvBytesPerTokenPerGpu() const;  // what one GPU stores
  double WeightBytes() const;            // whole model, all GPUs
  // Peak activation memory of vLLM's profiling pass on one GPU: a dummy batch
  // of max_num_batched_tokens tokens (its widest layer: residual, normed
  // input, gate and up projections) and the sampler over
  // min(max_num_batched_tokens, max_num_seqs) rows of fp32 logits and
  // probabilities (vllm/v1/worker/gpu_model_runner.py profile_run). An
  // estimate: vLLM measures it.
  double ActivationBytesPerGpu() const;
  // KV bytes one GPU keeps for the pool: gpu_memory_utilization of its memory
  // less its weights, the activation peak and non-torch memory
  // (vllm/v1/worker/gpu_worker.py determine_available_memory); may be <= 0.
  double KvPoolBytesPerGpu() const;
  // Blocks of the destination's pool: every GPU holds its heads of each block;
  // one block is vLLM's reserved null block (vllm/v1/core/block_pool.py).
  int64_t KvCapacityBlocks() const;
};

// Parses a profile: a map with `model` and `gpu` (built-in names or .yaml
// paths, relative to `base_dir` when given), tensor_parallel, dtypes, engine
// and calibration; errors name `source`, the line and the key under `path`.
// Throws sim::YamlError.
Profile ParseProfile(const YAML::Node& node, const std::string& source,
                     const std::string& path = "", const std::string& base_dir = "");

// The built-in profiles (models/profiles/*.yaml), in name order.
const std::vector<Profile>& BuiltinProfiles();

// A built-in profile by name, or, if `name` ends in .yaml, the profile in that
// file. Throws std::invalid_argument naming the valid profiles when unknown,
// sim::YamlError when a file is malformed.
Profile FindProfile(std::string_view name);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROFILE_H_
