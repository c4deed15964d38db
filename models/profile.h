// A hardware + model + dtype + tensor-parallel profile: everything the cost
// model and the KV pool need to know about one serving destination
// (DESIGN.md, "Cost model"). Profiles are data files (models/profiles/*.yaml,
// compiled in) or a user's own file; each calibration point cites its source.
#ifndef KVROUTE_MODELS_PROFILE_H_
#define KVROUTE_MODELS_PROFILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvroute::models {

struct Hardware {
  std::string name;
  double peak_flops_16bit = 0;    // dense BF16/FP16 tensor FLOP/s per GPU
  double peak_flops_fp8 = 0;      // dense FP8 tensor FLOP/s per GPU
  double hbm_bytes_per_s = 0;     // HBM bandwidth per GPU
  double memory_bytes = 0;        // HBM capacity per GPU
  double nvlink_bytes_per_s = 0;  // per GPU, bidirectional
};

struct ModelArchitecture {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int ffn = 0;
  int vocab = 0;
  bool tied_embeddings = false;

  // Parameters of the per-token linear layers (QKV, O, gated MLP) over all layers.
  double LinearParams() const;
  // All parameters, embeddings and LM head included.
  double TotalParams() const;
};

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
  Hardware hardware;
  ModelArchitecture model;
  double weight_bytes_per_param = 2;  // 2 for bf16/fp16, 1 for fp8
  double kv_bytes_per_element = 2;    // 2 for bf16/fp16 KV, 1 for fp8 KV
  int tensor_parallel = 1;
  int block_size_tokens = 16;

  // Efficiency factors: the fraction of the roofline peak each part achieves.
  double linear_compute_efficiency = 1;     // of peak tensor FLOP/s
  double linear_memory_efficiency = 1;      // of HBM bandwidth, reading weights
  double linear_fixed_s = 0;                // per forward pass (kernel launches)
  double attention_compute_efficiency = 1;  // prefill attention FLOP/s
  double attention_memory_efficiency = 1;   // decode attention, reading KV
  double allreduce_efficiency = 1;          // of NVLink bandwidth
  double allreduce_latency_s = 0;           // per all-reduce call
  double iteration_overhead_s = 0;          // scheduling, sampling, launch; per iteration

  // KV pool sizing (vLLM's gpu_memory_utilization and a reserve for activations).
  double gpu_memory_utilization = 0.9;
  double activation_reserve_bytes = 0;  // per GPU

  double calibration_tolerance = 0.15;  // held points: |model − published| / published
  std::vector<CalibrationPoint> calibration;

  double PeakFlops() const;  // per GPU, in the weight dtype
  double KvBytesPerToken() const;
  double WeightBytes() const;  // whole model, all GPUs
  // Bytes left for the KV pool on one destination (all TP GPUs); may be <= 0.
  double KvPoolBytes() const;
  // Blocks that fit in the KV pool of one destination.
  int64_t KvCapacityBlocks() const;
};

// Parses a profile document; errors name `source`, the line and the key.
// Throws sim::YamlError.
Profile ParseProfile(const std::string& text, const std::string& source);

// The built-in profiles (models/profiles/*.yaml), in name order.
const std::vector<Profile>& BuiltinProfiles();

// A built-in profile by name, or, if `name` ends in .yaml, the profile in that
// file. Throws std::invalid_argument naming the valid profiles when unknown,
// sim::YamlError when a file is malformed.
Profile FindProfile(std::string_view name);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROFILE_H_
