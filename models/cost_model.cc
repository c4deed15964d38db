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
      kv_bytes_per_s_(profile.gpu.hbm_bytes_per_s * profile.gpu.efficiency.kv_bandwidth) {}

double PhysicalCostModel::LinearPartSeconds(int64_t tokens, int64_t sampled_sequences) const {
  const ModelArchitecture& m = profile_.model;
  const double tp = profile_.tensor_parallel;
  const double flops = (2.0 * m.ActiveLinearParams() * static_cast<double>(tokens) +
                        2.0 * m.LmHeadParams() * static_cast<double>(sampled_sequences)) /
                       tp;
  const double bytes =
      m.WeightParamsRead(static_cast<double>(tokens)) * DtypeBytes(profile_.weight_dtype) / tp;
  return std::max(flops / gemm_flops_per_s_, bytes / weight_bytes_per_s_);
}

double PhysicalCostModel::LinearSeconds(int64_t tokens) const {
  const ModelArchitecture& m = profile_.model;
  const double tp = profile_.tensor_parallel;
  const double flops = 2.0 * m.ActiveLinearParams() * static_cast<double>(tokens) / tp;
  const double bytes = (m.WeightParamsRead(static_cast<double>(tokens)) - m.LmHeadParams()) *
                       DtypeBytes(profile_.weight_dtype) / tp;
  return std::max(flops / gemm_flops_per_s_, bytes / weight_bytes_per_s_);
}

IterationBreakdown PhysicalCostModel::Breakdown(const BatchShape& batch) const {
  IterationBreakdown b;
  const int64_t tokens = batch.prefill_tokens + batch.decode_sequences;
  if (tokens == 0) return b;
  const ModelArchitecture& m = profile_.model;
  const GpuEfficiency& e = profile_.gpu.efficiency;
  const double tp = profile_.tensor_parallel;

  b.linear = LinearPartSeconds(tokens, batch.sequences);
  // QKᵀ and AV: two multiply-adds per (query, key) pair per head dimension.
  const double q_width = static_cast<double>(m.heads) * m.head_dim;
  b.prefill_attention =
      4.0 * m.layers * q_width * batch.prefill_attention_context / tp / attention_flops_per_s_;
  b.decode_attention =
      profile_.KvBytesPerTokenPerGpu() * batch.decode_context_tokens / kv_bytes_per_s_;
  if (profile_.tensor_parallel > 1) {
    const double buffer = static_cast<double>(tokens) * m.hidden * 2;  // 16-bit activations
    const double per_gpu = 2.0 * (tp - 1) / tp * buffer;
    const double link = profile_.gpu.link_bytes_per_s * e.link_bandwidth;
    b.allreduce = 2.0 * m.layers * (per_gpu / link + e.allreduce_latency_s);
  }
  b.launch =
      m.layers * (tokens > cudagraph_max_tokens_ ? e.eager_layer_overhead_s : e.layer_overhead_s);
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
