#include "models/profile.h"

#include <cmath>
#include <stdexcept>

namespace kvroute::models {
namespace {

// NVIDIA H100 SXM5 80 GB datasheet (shared/reference/cost-anchors.md, "Hardware").
Hardware H100Sxm() {
  return Hardware{.name = "H100-SXM5-80GB",
                  .peak_flops_16bit = 989.5e12,
                  .peak_flops_fp8 = 1979e12,
                  .hbm_bytes_per_s = 3.35e12,
                  .memory_bytes = 80e9,
                  .nvlink_bytes_per_s = 900e9};
}

// Llama-3.1-8B published config (cost-anchors.md, "Model architectures").
ModelArchitecture Llama31_8B() {
  return ModelArchitecture{.name = "Llama-3.1-8B",
                           .layers = 32,
                           .hidden = 4096,
                           .heads = 32,
                           .kv_heads = 8,
                           .head_dim = 128,
                           .ffn = 14336,
                           .vocab = 128256,
                           .tied_embeddings = false};
}

constexpr char kVidur8B[] =
    "Vidur profile data/profiling/compute/h100/meta-llama/Meta-Llama-3-8B/mlp.csv "
    "(vidur-simulator fork @e386925), linear+norm+activation summed over 32 layers, median";

std::vector<Profile> MakeBuiltinProfiles() {
  std::vector<Profile> profiles;

  Profile p;
  p.name = "h100-llama3.1-8b-bf16";
  p.description = "Llama-3.1-8B, bf16 weights and KV, one H100-SXM (TP1)";
  p.hardware = H100Sxm();
  p.model = Llama31_8B();
  p.weight_bytes_per_param = 2;
  p.kv_bytes_per_element = 2;
  p.tensor_parallel = 1;
  // Fitted to the Vidur rows below (tests/models/cost_model_test.cc holds each
  // within 15%): 4096 tokens of linear work is 57.8 ms at peak against 90.8 ms
  // measured; one token reads 13.96 GB of linear weights, 4.17 ms at peak
  // bandwidth against 5.70 ms measured.
  p.linear_compute_efficiency = 0.637;
  p.linear_memory_efficiency = 0.732;
  // BLIS hardware_config.json roofline defaults for H100: MFU prefill 0.45,
  // decode 0.30 (cost-anchors.md). Used for attention, which Vidur's rows exclude.
  p.attention_compute_efficiency = 0.45;
  p.attention_memory_efficiency = 0.30;
  p.allreduce_efficiency = 0.7;
  // Scheduling, sampling and kernel launch per iteration. With it a batch of 32
  // decodes at ~1.3k context takes ~12 ms, inside llm-d inference-sim's 10-15 ms
  // ITL range for 7-8B models on H100 (docs/latency-profiles.md).
  p.iteration_overhead_s = 2e-3;
  p.gpu_memory_utilization = 0.9;
  p.activation_reserve_bytes = 4e9;
  p.calibration = {{1, 5.70, kVidur8B},     {128, 6.56, kVidur8B},   {512, 11.87, kVidur8B},
                   {1024, 21.82, kVidur8B}, {2048, 43.2, kVidur8B},  {4096, 90.8, kVidur8B},
                   {8192, 184.3, kVidur8B}, {16384, 366.5, kVidur8B}};
  profiles.push_back(p);

  return profiles;
}

}  // namespace

double ModelArchitecture::LinearParams() const {
  double h = hidden;
  double kv_width = static_cast<double>(kv_heads) * head_dim;
  double q_width = static_cast<double>(heads) * head_dim;
  double attention = h * q_width + 2 * h * kv_width + q_width * h;  // Q, K, V, O
  double mlp = 3 * h * ffn;                                         // gate, up, down
  return layers * (attention + mlp);
}

double ModelArchitecture::TotalParams() const {
  double embeddings = static_cast<double>(vocab) * hidden * (tied_embeddings ? 1 : 2);
  return LinearParams() + embeddings;
}

double Profile::PeakFlops() const {
  return weight_bytes_per_param <= 1 ? hardware.peak_flops_fp8 : hardware.peak_flops_16bit;
}

double Profile::KvBytesPerToken() const {
  return 2.0 * model.layers * model.kv_heads * model.head_dim * kv_bytes_per_element;
}

double Profile::WeightBytes() const { return model.TotalParams() * weight_bytes_per_param; }

int64_t Profile::KvCapacityBlocks() const {
  double usable = tensor_parallel *
                      (hardware.memory_bytes * gpu_memory_utilization - activation_reserve_bytes) -
                  WeightBytes();
  if (usable <= 0) return 0;
  double tokens = usable / KvBytesPerToken();
  return static_cast<int64_t>(std::floor(tokens / block_size_tokens));
}

const std::vector<Profile>& BuiltinProfiles() {
  static const std::vector<Profile> profiles = MakeBuiltinProfiles();
  return profiles;
}

const Profile& FindProfile(std::string_view name) {
  std::string valid;
  for (const Profile& p : BuiltinProfiles()) {
    if (p.name == name) return p;
    valid += (valid.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown profile '" + std::string(name) + "' (valid: " + valid + ")");
}

}  // namespace kvroute::models
