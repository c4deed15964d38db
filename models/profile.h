// A hardware + model + dtype + tensor-parallel profile: everything the cost
// model and the KV pool need to know about one serving destination
// (DESIGN.md, "Cost model"). Profiles are looked up by name.
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

// One published measurement the profile is calibrated against.
struct CalibrationPoint {
  int batch_tokens;    // tokens in one forward pass
  double linear_ms;    // measured time of the linear layers alone
  std::string source;  // where the number was published
};

struct Profile {
  std::string name;
  std::string description;
  Hardware hardware;
  ModelArchitecture model;
  double weight_bytes_per_param = 2;  // 2 for bf16/fp16, 1 for fp8
  double kv_bytes_per_element = 2;    // 2 for bf16/fp16 KV, 1 for fp8 KV
  int tensor_parallel = 1;
  int block_size_tokens = 16;

  // Efficiency factors: the fraction of the roofline peak each part achieves.
  double linear_compute_efficiency = 1;     // of peak tensor FLOP/s
  double linear_memory_efficiency = 1;      // of HBM bandwidth, reading weights
  double attention_compute_efficiency = 1;  // prefill attention FLOP/s
  double attention_memory_efficiency = 1;   // decode attention, reading KV
  double allreduce_efficiency = 1;          // of NVLink bandwidth
  double iteration_overhead_s = 0;          // scheduling, sampling, launch; per iteration

  // KV pool sizing (vLLM's gpu_memory_utilization and a reserve for activations).
  double gpu_memory_utilization = 0.9;
  double activation_reserve_bytes = 0;  // per GPU

  std::vector<CalibrationPoint> calibration;

  double PeakFlops() const;  // per GPU, in the weight dtype
  double KvBytesPerToken() const;
  double WeightBytes() const;  // whole model, all GPUs
  // Blocks that fit in the KV pool of one destination (all TP GPUs together).
  int64_t KvCapacityBlocks() const;
};

// The built-in profiles, in a fixed order.
const std::vector<Profile>& BuiltinProfiles();

// Throws std::invalid_argument naming the valid profiles when `name` is unknown.
const Profile& FindProfile(std::string_view name);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROFILE_H_
