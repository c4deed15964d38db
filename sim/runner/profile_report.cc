#include "sim/runner/profile_report.h"

#include <string>
#include <vector>

#include "analysis/format_number.h"
#include "models/calibration.h"
#include "models/catalog.h"
#include "models/profile.h"
#include "sim/runner/text_table.h"

namespace kvroute::sim {
namespace {

using analysis::FormatNumber;
using Rows = std::vector<std::vector<std::string>>;
constexpr double kGiB = 1024.0 * 1024 * 1024;

void Heading(std::ostream& out, bool markdown, const std::string& text) {
  out << (markdown ? "## " : "") << text << (markdown ? "\n\n" : ":\n");
}

std::string Published(const models::CalibrationPoint& p) {
  if (p.kind == models::CalibrationPoint::Kind::kDecodeRange) {
    return FormatNumber("%g", p.min_ms) + "–" + FormatNumber("%g", p.max_ms);
  }
  return FormatNumber("%g", p.ms);
}

void PrintGpus(std::ostream& out, bool markdown) {
  Heading(out, markdown, "GPUs (models/gpus/)");
  Rows specs{{"GPU", "BF16 TFLOP/s", "FP8 TFLOP/s", "HBM TB/s", "memory GiB", "link GB/s"}};
  for (const models::Gpu& g : models::BuiltinGpus()) {
    specs.push_back({g.name, FormatNumber("%.1f", g.peak_flops_bf16 / 1e12),
                     g.peak_flops_fp8 > 0 ? FormatNumber("%.0f", g.peak_flops_fp8 / 1e12) : "—",
                     FormatNumber("%.3g", g.hbm_bytes_per_s / 1e12),
                     FormatNumber("%.1f", g.memory_bytes / kGiB),
                     FormatNumber("%.0f", g.link_bytes_per_s / 1e9) + " " + g.interconnect});
  }
  PrintTable(out, markdown, specs);

  // Prices are assumptions with a source (issue 15); scenarios override them.
  Heading(out, markdown, "Prices per GPU-hour (assumptions; cluster.usd_per_gpu_hour overrides)");
  Rows prices{{"GPU", "$/GPU-hour", "source"}};
  for (const models::Gpu& g : models::BuiltinGpus()) {
    prices.push_back({g.name,
                      g.usd_per_gpu_hour > 0 ? FormatNumber("%.3f", g.usd_per_gpu_hour) : "—",
                      g.price_source.empty() ? "none" : g.price_source});
  }
  PrintTable(out, markdown, prices);

  Heading(out, markdown, "Efficiencies per GPU kind (fitted by `kvroute validation --fit`)");
  Rows fitted{{"GPU", "GEMM 16-bit", "GEMM fp8", "weight BW", "KV BW", "attention", "link",
               "all-reduce µs", "layer µs (graph)", "layer µs (eager)", "step µs", "per seq µs",
               "front end ms"}};
  for (const models::Gpu& g : models::BuiltinGpus()) {
    const models::GpuEfficiency& e = g.efficiency;
    fitted.push_back(
        {g.name, FormatNumber("%.3f", e.gemm_compute_16bit),
         FormatNumber("%.3f", e.gemm_compute_fp8), FormatNumber("%.3f", e.weight_bandwidth),
         FormatNumber("%.3f", e.kv_bandwidth), FormatNumber("%.3f", e.attention_compute),
         FormatNumber("%.3f", e.link_bandwidth), FormatNumber("%.1f", e.allreduce_latency_s * 1e6),
         FormatNumber("%.1f", e.layer_overhead_s * 1e6),
         FormatNumber("%.1f", e.eager_layer_overhead_s * 1e6),
         FormatNumber("%.0f", e.step_overhead_s * 1e6),
         FormatNumber("%.1f", e.sequence_overhead_s * 1e6),
         FormatNumber("%.1f", e.frontend_latency_s * 1e3)});
  }
  PrintTable(out, markdown, fitted);
  for (const models::Gpu& g : models::BuiltinGpus()) {
    out << (markdown ? "- `" : "  ") << g.name << (markdown ? "`: " : ": ") << g.efficiency_source
        << "\n";
  }
  out << "\n";
}

void PrintModels(std::ostream& out, bool markdown) {
  Heading(out, markdown, "Models (models/architectures/)");
  Rows rows{{"model", "layers", "hidden", "heads / KV", "head dim", "MLP", "vocab", "experts",
             "params B", "active B", "KV KiB/token (16-bit)"}};
  for (const models::ModelArchitecture& m : models::BuiltinArchitectures()) {
    const double active = m.ActiveLinearParams() + 2 * m.LmHeadParams();
    rows.push_back(
        {m.name, std::to_string(m.layers), std::to_string(m.hidden),
         std::to_string(m.heads) + " / " + std::to_string(m.kv_heads), std::to_string(m.head_dim),
         std::to_string(m.moe.enabled() ? m.moe.expert_intermediate : m.intermediate),
         std::to_string(m.vocab),
         m.moe.enabled()
             ? std::to_string(m.moe.active_experts) + " of " + std::to_string(m.moe.experts)
             : "—",
         FormatNumber("%.2f", m.TotalParams() / 1e9), FormatNumber("%.2f", active / 1e9),
         FormatNumber("%.0f", 2.0 * m.layers * m.kv_heads * m.head_dim * 2 / 1024)});
  }
  PrintTable(out, markdown, rows);
}

void PrintProfileTable(std::ostream& out, bool markdown) {
  Heading(out, markdown, "Profiles (models/profiles/)");
  Rows rows{{"profile", "model", "GPU × TP", "weights / KV", "weights GB", "KV pool GiB",
             "KV blocks", "max_num_seqs", "max_num_batched_tokens"}};
  for (const models::Profile& p : models::BuiltinProfiles()) {
    const models::EngineSettings e = p.ResolvedEngine();
    rows.push_back(
        {p.name, p.model.name, p.gpu.name + " × " + std::to_string(p.tensor_parallel),
         std::string(models::DtypeName(p.weight_dtype)) + " / " + models::DtypeName(p.kv_dtype),
         FormatNumber("%.1f", p.WeightBytes() / 1e9),
         FormatNumber("%.1f", std::max(0.0, p.KvPoolBytesPerGpu()) * p.tensor_parallel / kGiB),
         std::to_string(p.KvCapacityBlocks()), std::to_string(e.max_num_seqs),
         std::to_string(e.max_num_batched_tokens)});
  }
  PrintTable(out, markdown, rows);
}

void PrintAnchors(std::ostream& out, bool markdown) {
  Heading(out, markdown, "Published microbenchmarks beside the model");
  out << (markdown ? "" : "  ")
      << "Points published for these models on H100s (../shared/reference/cost-anchors.md). "
         "They were not fitted on: they check the fitted H100 efficiencies from outside. "
         "Held points must stay within the profile's tolerance "
         "(tests/models/calibration_test.cc).\n\n";
  for (const models::Profile& p : models::BuiltinProfiles()) {
    if (p.calibration.empty()) continue;
    out << (markdown ? "### `" : "") << p.name << (markdown ? "`" : "") << " (tolerance "
        << FormatNumber("%.0f", p.calibration_tolerance * 100) << "%)"
        << (markdown ? "\n\n" : ":\n");
    Rows rows{{"measurement", "published ms", "kvroute ms", "error", "held", "source"}};
    for (const models::CalibrationResult& r : models::EvaluateCalibration(p)) {
      rows.push_back({r.point.Describe(), Published(r.point), FormatNumber("%.2f", r.model_ms),
                      FormatNumber("%+.1f%%", 100 * r.error),
                      r.point.held ? (r.within ? "yes" : "yes, OUTSIDE") : "no", r.point.source});
    }
    PrintTable(out, markdown, rows);
  }
}

}  // namespace

void PrintProfiles(std::ostream& out, bool markdown) {
  if (markdown) {
    out << "# GPUs, models, profiles and their calibration\n\n"
           "Generated by `kvroute profiles --markdown`; a test keeps this file equal to that "
           "output. How the cost model uses each number, and how the efficiencies were fitted, "
           "is in [COST_MODEL.md](COST_MODEL.md); how well the fitted model predicts the "
           "measured vLLM runs is in [VALIDATION.md](VALIDATION.md).\n\n";
  }
  PrintGpus(out, markdown);
  PrintModels(out, markdown);
  PrintProfileTable(out, markdown);
  PrintAnchors(out, markdown);
}

}  // namespace kvroute::sim
