// A GPU kind: its datasheet (peak tensor FLOP/s per dtype, memory bandwidth and
// size, interconnect) and the efficiencies the cost model achieves on it,
// fitted once per GPU kind on measured vLLM runs (DESIGN.md, "Hardware and
// models as data"). GPUs are data files (models/gpus/*.yaml, compiled in).
#ifndef KVROUTE_MODELS_GPU_H_
#define KVROUTE_MODELS_GPU_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "models/dtype.h"

namespace kvroute::models {

// The fraction of each datasheet peak the serving engine achieves, and the
// fixed costs a roofline has no term for (models/cost_model.h says where each
// one enters an iteration). Fitted per GPU kind by `kvroute validation --fit`.
struct GpuEfficiency {
  double gemm_compute_16bit = 0.6;     // of the 16-bit tensor peak, in linear layers
  double gemm_compute_fp8 = 0.6;       // of the FP8 tensor peak, in fp8 linear layers
  double weight_bandwidth = 0.8;       // of HBM bandwidth, reading weights
  double kv_bandwidth = 0.8;           // of HBM bandwidth, decode attention reading KV
  double attention_compute = 0.45;     // of the 16-bit tensor peak, prefill attention
  double link_bandwidth = 0.8;         // of interconnect bandwidth, TP all-reduce
  double allreduce_latency_s = 10e-6;  // per all-reduce call
  double layer_overhead_s = 0;         // per layer per iteration run as a CUDA graph
  double eager_layer_overhead_s = 0;   // per layer per iteration too large for a CUDA graph
  double step_overhead_s = 0;          // per iteration: scheduling, input prep, sampling
  double sequence_overhead_s = 0;      // per sequence in the batch per iteration
  double frontend_latency_s = 0;       // per request: API server, tokenisation, streaming
};

struct Gpu {
  std::string name;
  std::string description;
  std::string file;  // where it was read from
  double peak_flops_bf16 = 0;
  double peak_flops_fp16 = 0;
  double peak_flops_fp8 = 0;  // 0: no FP8 tensor cores
  double hbm_bytes_per_s = 0;
  double memory_bytes = 0;  // as the CUDA runtime reports it
  std::string interconnect = "nvlink";
  double link_bytes_per_s = 0;  // per GPU, per direction
  GpuEfficiency efficiency;
  // Where the efficiencies come from: the measured rows they were fitted on,
  // or the GPU kind they are borrowed from when none was measured here.
  std::string efficiency_source;
  // What one GPU of this kind costs per hour, US dollars, and where the figure
  // comes from (a public price list, named in the file); an assumption that
  // scenarios override with cluster.usd_per_gpu_hour.
  double usd_per_gpu_hour = 0;
  std::string price_source;

  // Dense tensor peak for arithmetic in `d`; fp8 falls back to 16-bit on GPUs
  // without FP8 tensor cores (weights are then dequantised).
  double PeakFlops(Dtype d) const;
  double GemmEfficiency(Dtype d) const;
};

// Parses a GPU document (models/gpus/*.yaml); errors name `source`, the line and the key. A GPU
// whose efficiencies say `borrow: NAME` takes them from `lenders` by name.
// Throws sim::YamlError.
Gpu ParseGpu(const YAML::Node& root, const std::string& source,
             const std::vector<Gpu>& lenders = {});

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_GPU_H_
