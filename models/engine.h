// The serving engine's settings that shape a replica: vLLM's engine arguments,
// with the defaults vLLM itself picks for the GPU and the entry point
// (DESIGN.md, "Replica"). Every default cites the vLLM source it comes from.
#ifndef KVROUTE_MODELS_ENGINE_H_
#define KVROUTE_MODELS_ENGINE_H_

#include <optional>
#include <string>
#include <string_view>

#include "models/gpu.h"

namespace kvroute::models {

// How the engine was started (vLLM's UsageContext): `vllm serve` and the
// OpenAI API server, the offline LLM class, or anything else (an engine built
// directly, the legacy api_server, run_batch).
enum class EntryPoint { kApiServer, kLlmClass, kOther };

const char* EntryPointName(EntryPoint e);
std::optional<EntryPoint> ParseEntryPoint(std::string_view name);
inline constexpr const char* kValidEntryPoints = "api_server, llm_class, other";

struct BatchDefaults {
  int max_num_seqs = 0;
  int max_num_batched_tokens = 0;
};

// vLLM's defaults for max_num_seqs and max_num_batched_tokens (chunked prefill
// on): GPUs with at least 70 GiB that are not A100s get the large ones (API
// server 1024 / 8192, LLM class 1024 / 16384), others the small ones (256 /
// 2048, 256 / 8192); other entry points 128 / 2048. vllm-project/vllm,
// vllm/engine/arg_utils.py EngineArgs.get_batch_defaults and
// vllm/config/scheduler.py DEFAULT_MAX_NUM_SEQS / DEFAULT_MAX_NUM_BATCHED_TOKENS,
// the same in v0.12.0 and v0.15.1.
BatchDefaults VllmBatchDefaults(const Gpu& gpu, EntryPoint entry_point);

struct EngineSettings {
  EntryPoint entry_point = EntryPoint::kApiServer;
  int max_num_seqs = 0;            // 0: vLLM's default for the GPU and entry point
  int max_num_batched_tokens = 0;  // 0: likewise
  // vLLM's default (vllm/config/cache.py); the KV pool is what is left of this
  // share of memory after weights, activations and non-torch allocations.
  double gpu_memory_utilization = 0.9;
  int block_size_tokens = 16;  // vLLM's default on CUDA (vllm/platforms/cuda.py)
  // Full blocks of generated tokens join the prefix cache (vLLM v1:
  // vllm/v1/core/kv_cache_manager.py allocate_slots caches every full block of
  // the request's tokens, outputs included).
  bool cache_generated_tokens = true;
  // The engine schedules step N+1 while the GPU runs step N, hiding the CPU
  // work of a step behind the GPU's (vllm/config/vllm.py: on by default from
  // v0.14; off in v0.12).
  bool async_scheduling = true;
  // Iterations of at most this many tokens replay a captured CUDA graph;
  // larger ones (a long prefill chunk) launch every kernel eagerly. 0: vLLM's
  // default min(2·max_num_seqs, 512, max_num_batched_tokens)
  // (vllm/config/vllm.py VllmConfig._set_cudagraph_sizes); -1: none
  // (--enforce-eager).
  int cudagraph_max_tokens = 0;
  // Per GPU: memory the engine holds outside PyTorch's allocator once it has
  // profiled (cuBLAS and NCCL workspaces, attention-backend buffers): 1.79 GiB
  // in the memory-profiling log of vLLM PR #10511 (Llama-3-8B on an H100).
  double non_torch_bytes = 1.92e9;
  // Per GPU: weights kept in host memory (vLLM --cpu-offload-gb), HBM freed
  // for the KV pool. Streaming them in is not modelled: the measured run with
  // 4 GiB offloaded was within 4% of the same run without (measured/README.md).
  double cpu_offload_bytes = 0;
};

// Fills the settings left at 0 with vLLM's defaults for `gpu`.
EngineSettings ResolveEngine(EngineSettings settings, const Gpu& gpu);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_ENGINE_H_
