// Iteration time of one continuous-batching step as a function of the batch
// (DESIGN.md, "Cost model"). Two models share one interface: the physical
// model of a profile, and a fixed-service-time model for queueing-theory
// validation.
#ifndef KVROUTE_MODELS_COST_MODEL_H_
#define KVROUTE_MODELS_COST_MODEL_H_

#include <cstdint>
#include <memory>

#include "models/profile.h"
#include "sim/core/time.h"

namespace kvroute::models {

// What one iteration computes. Built up by the scheduler as it forms a batch.
struct BatchShape {
  int64_t prefill_tokens = 0;  // new prompt tokens computed this iteration
  // Σ over prefill tokens of the attention context each one sees (itself and
  // everything before it, cached prefix included).
  double prefill_attention_context = 0;
  int64_t decode_sequences = 0;      // sequences producing one token each
  double decode_context_tokens = 0;  // Σ context length of those sequences
  int64_t sequences = 0;             // sequences in the batch (prefill + decode)

  bool Empty() const { return prefill_tokens == 0 && decode_sequences == 0; }

  // Adds a prefill chunk of `tokens` new tokens after `context_before` tokens
  // that are already in the KV cache (cached prefix plus earlier chunks).
  // Inline: the scheduler calls these once per sequence per iteration.
  void AddPrefillChunk(int64_t context_before, int64_t tokens) {
    prefill_tokens += tokens;
    // Token j of the chunk (1-based) attends to context_before + j positions.
    double n = static_cast<double>(tokens);
    prefill_attention_context += n * static_cast<double>(context_before) + n * (n + 1) / 2;
    ++sequences;
  }
  void AddDecode(int64_t context) {
    ++decode_sequences;
    decode_context_tokens += static_cast<double>(context);
    ++sequences;
  }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual sim::Time IterationTime(const BatchShape& batch) const = 0;
  // Time a request spends in the serving front end (API server, tokenising,
  // streaming) outside the engine's iterations; it adds to TTFT and E2E.
  virtual sim::Time FrontendLatency() const { return 0; }
};

// The time of each part of one iteration, in seconds (PhysicalCostModel).
struct IterationBreakdown {
  double linear = 0;             // linear layers and LM head: max(compute, weight reads)
  double prefill_attention = 0;  // QKᵀ and AV of prefill tokens, compute-bound
  double decode_attention = 0;   // reading every decoding sequence's KV
  double allreduce = 0;          // TP: two all-reduces of the activations per layer
  double launch = 0;             // per-layer kernel-launch gaps (CUDA graph or eager)
  double cpu = 0;                // scheduling, input preparation, sampling
  double total = 0;              // GPU parts + cpu, or max of the two with async scheduling
};

// Physical terms only (DESIGN.md): each part is work over a datasheet peak
// times the efficiency fitted for the GPU kind (models/gpus/*.yaml):
//  - linear layers and the LM head: max(FLOPs / (peak(weight dtype) ·
//    gemm_compute), weight bytes read / (HBM · weight_bandwidth)); FLOPs count
//    the active parameters per token (MoE: the routed experts), bytes the
//    weights the pass touches (MoE: the experts it is expected to touch);
//  - prefill attention: 4 · layers · heads · head_dim FLOPs per (query, key)
//    pair at the 16-bit peak times attention_compute;
//  - decode attention: each decoding sequence's KV bytes / (HBM · kv_bandwidth);
//  - TP all-reduce: two ring all-reduces of 16-bit activations per layer,
//    2(tp−1)/tp of the buffer over the link at link_bandwidth, plus a latency
//    per call;
//  - layers · layer_overhead (launch gaps) on the GPU, eager_layer_overhead
//    when the iteration has more tokens than the largest CUDA graph (vLLM
//    runs those without graphs, vllm/v1/cudagraph_dispatcher.py; AIConfigurator
//    prices vLLM's prefill dispatch at 0.8 ms per layer,
//    sdk/backends/vllm_backend.py), and on the CPU
//    step_overhead + sequences · sequence_overhead, added to the GPU time, or
//    overlapped with it (max) when the engine schedules asynchronously.
// Every term divides by the TP degree where the work is sharded.
class PhysicalCostModel : public CostModel {
 public:
  explicit PhysicalCostModel(const Profile& profile);
  sim::Time IterationTime(const BatchShape& batch) const override;
  sim::Time FrontendLatency() const override;

  IterationBreakdown Breakdown(const BatchShape& batch) const;
  // The linear layers alone for `tokens` tokens in one pass, in seconds: the
  // quantity Vidur's MLP profiles measure (published calibration anchors).
  double LinearSeconds(int64_t tokens) const;

 private:
  double LinearPartSeconds(int64_t tokens, int64_t sampled_sequences) const;

  Profile profile_;
  bool async_scheduling_;
  int cudagraph_max_tokens_;      // larger iterations run eagerly
  double gemm_flops_per_s_;       // achieved, per GPU, in the weight dtype
  double attention_flops_per_s_;  // achieved, per GPU, 16-bit
  double weight_bytes_per_s_;     // achieved HBM reading weights, per GPU
  double kv_bytes_per_s_;         // achieved HBM reading KV, per GPU
  // Factors of the terms above that depend on the profile alone, computed
  // once: the cost model runs every iteration of every replica. Each is the
  // leading part of its term's expression, evaluated in the same order, so an
  // iteration's time is the same double as when every factor was recomputed.
  double tp_;
  double weight_dtype_bytes_;
  double linear_flops_per_token_;               // 2 · active linear parameters
  double lm_head_flops_per_sequence_;           // 2 · LM head parameters
  double dense_weight_read_seconds_;            // a dense model reads the same weights every pass
  double prefill_attention_flops_per_context_;  // 4 · layers · heads · head_dim
  double kv_bytes_per_token_;                   // per GPU
  double allreduce_share_;                      // 2(tp − 1)/tp of the buffer crosses the link
  double allreduce_link_bytes_per_s_;
  double allreduce_calls_;       // 2 · layers
  double graph_launch_seconds_;  // layers · layer_overhead
  double eager_launch_seconds_;  // layers · eager_layer_overhead
};

// Every iteration takes the same time, whatever the batch. With one sequence
// per batch a replica becomes an M/D/1 queue.
class FixedCostModel : public CostModel {
 public:
  explicit FixedCostModel(sim::Time iteration_time) : iteration_time_(iteration_time) {}
  sim::Time IterationTime(const BatchShape&) const override { return iteration_time_; }

 private:
  sim::Time iteration_time_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_COST_MODEL_H_
