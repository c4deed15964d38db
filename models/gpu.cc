#include "models/gpu.h"

#include "sim/core/yaml_map.h"

namespace kvroute::models {
namespace {

GpuEfficiency ParseEfficiency(sim::YamlMap& map) {
  GpuEfficiency e;
  e.gemm_compute_16bit = map.RequiredNumber("gemm_compute_16bit", 1e-3, 1);
  e.gemm_compute_fp8 = map.Number("gemm_compute_fp8", e.gemm_compute_16bit, 1e-3, 1);
  e.weight_bandwidth = map.RequiredNumber("weight_bandwidth", 1e-3, 1);
  e.kv_bandwidth = map.RequiredNumber("kv_bandwidth", 1e-3, 1);
  e.attention_compute = map.RequiredNumber("attention_compute", 1e-3, 1);
  e.link_bandwidth = map.RequiredNumber("link_bandwidth", 1e-3, 1);
  e.allreduce_latency_s = map.RequiredNumber("allreduce_latency_s", 0, 1e-2);
  e.layer_overhead_s = map.RequiredNumber("layer_overhead_s", 0, 1e-2);
  e.eager_layer_overhead_s = map.RequiredNumber("eager_layer_overhead_s", 0, 1e-2);
  e.step_overhead_s = map.RequiredNumber("step_overhead_s", 0, 1);
  e.sequence_overhead_s = map.RequiredNumber("sequence_overhead_s", 0, 1e-2);
  e.frontend_latency_s = map.RequiredNumber("frontend_latency_s", 0, 10);
  return e;
}

}  // namespace

double Gpu::PeakFlops(Dtype d) const {
  switch (d) {
    case Dtype::kBf16:
      return peak_flops_bf16;
    case Dtype::kFp16:
      return peak_flops_fp16;
    case Dtype::kFp8:
      return peak_flops_fp8 > 0 ? peak_flops_fp8 : peak_flops_bf16;
  }
  return peak_flops_bf16;
}

double Gpu::GemmEfficiency(Dtype d) const {
  return d == Dtype::kFp8 && peak_flops_fp8 > 0 ? efficiency.gemm_compute_fp8
                                                : efficiency.gemm_compute_16bit;
}

Gpu ParseGpu(const YAML::Node& root, const std::string& source, const std::vector<Gpu>& lenders) {
  sim::YamlMap top(source, root, "");
  Gpu g;
  g.file = source;
  top.Required("name");
  g.name = top.String("name", "");
  g.description = top.String("description", "");
  sim::YamlMap peaks(source, top.Required("peak_flops"), "peak_flops");
  g.peak_flops_bf16 = peaks.RequiredNumber("bf16", 1);
  g.peak_flops_fp16 = peaks.Number("fp16", g.peak_flops_bf16, 1);
  g.peak_flops_fp8 = peaks.Number("fp8", 0, 0);
  peaks.Finish();
  g.hbm_bytes_per_s = top.RequiredNumber("hbm_bytes_per_s", 1);
  g.memory_bytes = top.RequiredNumber("memory_bytes", 1);
  sim::YamlMap link(source, top.Required("interconnect"), "interconnect");
  g.interconnect = link.String("kind", "nvlink");
  if (g.interconnect != "nvlink" && g.interconnect != "pcie") {
    link.Fail("kind", "unknown interconnect '" + g.interconnect + "' (valid: nvlink, pcie)");
  }
  g.link_bytes_per_s = link.RequiredNumber("bytes_per_s", 1);
  link.Finish();

  // Optional: a GPU file without a price leaves cost reports to the scenario's
  // cluster.usd_per_gpu_hour. A price never comes without its source.
  if (sim::YamlAt(top.node(), "price").IsDefined()) {
    sim::YamlMap price(source, top.Required("price"), "price");
    g.usd_per_gpu_hour = price.RequiredNumber("usd_per_gpu_hour", 1e-6, 1e6);
    price.Required("source");
    g.price_source = price.String("source", "");
    if (g.price_source.empty()) price.Fail("source", "name where the price comes from");
    price.Finish();
  }

  sim::YamlMap eff(source, top.Required("efficiency"), "efficiency");
  if (YAML::Node lender = sim::YamlAt(eff.node(), "borrow"); lender.IsDefined()) {
    std::string name = eff.String("borrow", "");
    const Gpu* from = nullptr;
    std::string valid;
    for (const Gpu& l : lenders) {
      if (l.name == name) from = &l;
      valid += (valid.empty() ? "" : ", ") + l.name;
    }
    if (from == nullptr) {
      eff.Fail("borrow",
               "no GPU '" + name + "' to borrow efficiencies from (valid: " + valid + ")");
    }
    g.efficiency = from->efficiency;
    g.efficiency_source =
        "borrowed from " + name + " (no measurement of this GPU): " + eff.String("reason", "");
  } else {
    g.efficiency = ParseEfficiency(eff);
    eff.Required("fitted_on");
    g.efficiency_source = eff.String("fitted_on", "");
  }
  eff.Finish();
  top.Finish();
  return g;
}

}  // namespace kvroute::models
