#include "models/cost_model.h"

#include <algorithm>

namespace kvroute::models {

void BatchShape::AddPrefillChunk(int64_t context_before, int64_t tokens) {
  prefill_tokens += tokens;
  // Token j of the chunk (1-based) attends to context_before + j positions.
  double n = static_cast<double>(tokens);
  prefill_attention_context += n * static_cast<double>(context_before) + n * (n + 1) / 2;
  ++sequences;
}

void BatchShape::AddDecode(int64_t context) {
  ++decode_sequences;
  decode_context_tokens += static_cast<double>(context);
  ++sequences;
}

RooflineCostModel::RooflineCostModel(const Profile& profile) : profile_(profile) {}

double RooflineCostModel::LinearSeconds(int64_t tokens) const {
  const double tp = profile_.tensor_parallel;
  const double params = profile_.model.LinearParams();
  double flops = 2.0 * params * static_cast<double>(tokens) / tp;
  double bytes = params * profile_.weight_bytes_per_param / tp;
  double compute = flops / (profile_.PeakFlops() * profile_.linear_compute_efficiency);
  double memory = bytes / (profile_.hardware.hbm_bytes_per_s * profile_.linear_memory_efficiency);
  return std::max(compute, memory) + profile_.linear_fixed_s;
}

double RooflineCostModel::AttentionSeconds(const BatchShape& batch) const {
  const ModelArchitecture& m = profile_.model;
  const double tp = profile_.tensor_parallel;
  // Prefill: QK^T and AV are 2 multiply-adds per (query, key) per head dim.
  double q_width = static_cast<double>(m.heads) * m.head_dim;
  double prefill_flops = 4.0 * m.layers * q_width * batch.prefill_attention_context / tp;
  double prefill = prefill_flops / (profile_.PeakFlops() * profile_.attention_compute_efficiency);
  // Decode: every running sequence reads its whole KV once per iteration.
  double decode_bytes = profile_.KvBytesPerToken() * batch.decode_context_tokens / tp;
  double decode =
      decode_bytes / (profile_.hardware.hbm_bytes_per_s * profile_.attention_memory_efficiency);
  return prefill + decode;
}

double RooflineCostModel::AllReduceSeconds(int64_t tokens) const {
  const int tp = profile_.tensor_parallel;
  if (tp <= 1) return 0;
  // Two ring all-reduces of the activations per layer (after attention and MLP);
  // each GPU sends and receives 2(tp-1)/tp of the buffer.
  double buffer = static_cast<double>(tokens) * profile_.model.hidden * 2;  // 16-bit activations
  double per_gpu = 2.0 * (tp - 1) / tp * buffer;
  double bandwidth = profile_.hardware.nvlink_bytes_per_s / 2 * profile_.allreduce_efficiency;
  return 2.0 * profile_.model.layers * (per_gpu / bandwidth + profile_.allreduce_latency_s);
}

sim::Time RooflineCostModel::IterationTime(const BatchShape& batch) const {
  int64_t tokens = batch.prefill_tokens + batch.decode_sequences;
  if (tokens == 0) return 0;
  // The LM head runs once per sequence that samples a token.
  double lm_head_flops = 2.0 * profile_.model.hidden * profile_.model.vocab *
                         static_cast<double>(batch.sequences) / profile_.tensor_parallel;
  double lm_head = lm_head_flops / (profile_.PeakFlops() * profile_.linear_compute_efficiency);
  double seconds = LinearSeconds(tokens) + lm_head + AttentionSeconds(batch) +
                   AllReduceSeconds(tokens) + profile_.iteration_overhead_s;
  return std::max<sim::Time>(1, sim::FromSeconds(seconds));
}

}  // namespace kvroute::models
