#include "models/cost_model.h"

#include <algorithm>

namespace kvroute::models {

PhysicalCostModel::PhysicalCostModel(const Profile& profile)
    : profile_(profile),
      async_scheduling_(profile.ResolvedEngine().async_scheduling),
      cudagraph_max_tokens_(profile.ResolvedEngine().cudagraph_max_tokens),
      gemm_flops_per_s_(profile.gpu.PeakFlops(profile.weight_dtype) *
                        profile.gpu.GemmEfficiency(profile.weight_dtype)),
      attention_flops_per_s_(profile.gpu.PeakFlops(Dtype::kBf16) *
                             profile.gpu.efficiency.attention_compute),
      weight_bytes_per_s_(profile.gpu.hbm_bytes_per_s * profile.gpu.efficiency.weight_bandwidth),
      kv_bytes_per_s_(profile.gpu.hbm_bytes_per_s * profile.gpu.efficiency.kv_bandwidth) {
  const ModelArchitecture& m = profile.model;
  const GpuEfficiency& e = profile.gpu.efficiency;
  tp_ = profile.tensor_parallel;
  weight_dtype_bytes_ = DtypeBytes(profile.weight_dtype);
  linear_flops_per_token_ = 2.0 * m.ActiveLinearParams();
  lm_head_flops_per_sequence_ = 2.0 * m.LmHeadParams();
  // A dense model's weight reads do not depend on the pass's tokens (the
  // argument is ignored); a MoE model's do, and are computed per pass.
  dense_weight_read_seconds_ =
      m.moe.enabled() ? 0 : m.WeightParamsRead(1) * weight_dtype_bytes_ / tp_ / weight_bytes_per_s_;
  // QKᵀ and AV: two multiply-adds per (query, key) pair per head dimension.
  const double q_width = static_cast<double>(m.heads) * m.head_dim;
  prefill_attention_flops_per_context_ = 4.0 * m.layers * q_width;
  kv_bytes_per_token_ = profile.KvBytesPerTokenPerGpu();
  allreduce_share_ = 2.0 * (tp_ - 1) / tp_;
  allreduce_link_bytes_per_s_ = profile.gpu.link_bytes_per_s * e.link_bandwidth;
  allreduce_calls_ = 2.0 * m.layers;
  graph_launch_seconds_ = m.layers * e.layer_overhead_s;
  eager_launch_seconds_ = m.layers * e.eager_layer_overhead_s;
}

double PhysicalCostModel::LinearPartSeconds(int64_t tokens, int64_t sampled_sequences) const {
  const double flops = (linear_flops_per_token_ * static_cast<double>(tokens) +
                        lm_head_flops_per_sequence_ * static_cast<double>(sampled_sequences)) /
                       tp_;
  const double weight_read_seconds =
      profile_.model.moe.enabled() ? profile_.model.WeightParamsRead(static_cast<double>(tokens)) *
                                         weight_dtype_bytes_ / tp_ / weight_bytes_per_s_
                                   : dense_weight_read_seconds_;
  return std::max(flops / gemm_flops_per_s_, weight_read_seconds);
}

double PhysicalCostModel::LinearSeconds(int64_t tokens) const {
  const ModelArchitecture& m = profile_.model;
  const double flops = linear_flops_per_token_ * static_cast<double>(tokens) / tp_;
  const double bytes = (m.WeightParamsRead(static_cast<double>(tokens)) - m.LmHeadParams()) *
                       weight_dtype_bytes_ / tp_;
  return std::max(flops / gemm_flops_per_s_, bytes / weight_bytes_per_s_);
}

IterationBreakdown PhysicalCostModel::Breakdown(const BatchShape& batch) const {
  IterationBreakdown b;
  const int64_t tokens = batch.prefill_tokens + batch.decode_sequences;
  if (tokens == 0) return b;
  const GpuEfficiency& e = profile_.gpu.efficiency;

  b.linear = LinearPartSeconds(tokens, batch.sequences);
  b.prefill_attention = prefill_attention_flops_per_context_ * batch.prefill_attention_context /
                        tp_ / attention_flops_per_s_;
  b.decode_attention = kv_bytes_per_token_ * batch.decode_context_tokens / kv_bytes_per_s_;
  if (profile_.tensor_parallel > 1) {
    const double buffer = static_cast<double>(tokens) * profile_.model.hidden * 2;  // 16-bit
    const double per_gpu = allreduce_share_ * buffer;
    b.allreduce =
        allreduce_calls_ * (per_gpu / allreduce_link_bytes_per_s_ + e.allreduce_latency_s);
  }
  b.launch = tokens > cudagraph_max_tokens_ ? eager_launch_seconds_ : graph_launch_seconds_;
  b.cpu = e.step_overhead_s + static_cast<double>(batch.sequences) * e.sequence_overhead_s;
  const double gpu = b.linear + b.prefill_attention + b.decode_attention + b.allreduce + b.launch;
  b.total = async_scheduling_ ? std::max(gpu, b.cpu) : gpu + b.cpu;
  return b;
}

sim::Time PhysicalCostModel::IterationTime(const BatchShape& batch) const {
  if (batch.prefill_tokens + batch.decode_sequences == 0) return 0;
  return std::max<sim::Time>(1, sim::FromSeconds(Breakdown(batch).total));
}

sim::Time PhysicalCostModel::FrontendLatency() const {
  return sim::FromSeconds(profile_.gpu.efficiency.frontend_latency_s);
}

}  // namespace kvroute::models
