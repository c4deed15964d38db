#include "sim/runner/validation/measured_data.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "models/catalog.h"

namespace kvroute::sim {
namespace {

[[noreturn]] void Fail(const std::string& where, const std::string& message) {
  throw std::runtime_error(where + ": " + message);
}

const models::ModelArchitecture& ArchitectureOf(const std::string& checkpoint,
                                                const std::string& where) {
  const models::ModelArchitecture* m = models::FindArchitectureOfCheckpoint(checkpoint);
  if (m == nullptr) Fail(where, "no built-in architecture lists checkpoint '" + checkpoint + "'");
  return *m;
}

models::Profile MakeProfile(const models::ModelArchitecture& model, const std::string& gpu, int tp,
                            models::Dtype weights, const std::string& where) {
  models::Profile p;
  p.model = model;
  try {
    p.gpu = models::FindGpu(gpu);
  } catch (const std::invalid_argument& e) {
    Fail(where, e.what());
  }
  p.tensor_parallel = tp;
  p.weight_dtype = weights;
  // KV dtype is not recorded: vLLM's kv_cache_dtype "auto" keeps it 16-bit.
  p.kv_dtype = models::Dtype::kBf16;
  p.name = model.name + " " + models::DtypeName(weights) + " " + gpu + " TP" + std::to_string(tp);
  p.description = p.name;
  return p;
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

double ParseNumber(const std::string& text, const std::string& where, const std::string& column) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  Fail(where, "column '" + column + "': expected a number, got '" + text + "'");
}

// AIConfigurator system names (measured/NOTICE.md) to kvroute GPUs.
std::string GpuOfSystem(const std::string& system, const std::string& where) {
  if (system == "h100_sxm") return "h100-sxm";
  if (system == "h200_sxm") return "h200-sxm";
  Fail(where, "unknown system '" + system + "' (known: h100_sxm, h200_sxm)");
}

// vLLM turned asynchronous scheduling on by default in v0.14 (2025-12-29);
// rows without a version were measured in 2025-10 (their provenance string),
// before it.
bool AsyncByDefault(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major > 0 || minor >= 14;
}

// The Llama-3.1-70B rows match SemiAnalysis InferenceX's last 70B sweep point
// for point (TP, concurrency, lengths, and its measured date 2025-10-29, when
// InferenceX dropped the model), which ran vLLM's benchmark_serving.py with
// --random-range-ratio 0.8, 10 × C prompts, no warm-up, against `vllm serve`
// with max_num_seqs = C, fp8 KV cache and asynchronous scheduling
// (SemiAnalysisAI/InferenceX full-sweep-tmpl.yml and its vLLM launch script,
// as read for this replay; an attribution by match, not a recorded fact).
void ReplayAsInferenceX(MeasuredExperiment* e) {
  e->length_low = 0.8;
  e->warmup_per_client = 0;
  e->measured_per_client = 10;
  e->burst_start = true;
  e->profile.engine.max_num_seqs = static_cast<int>(e->concurrency);
  e->profile.engine.async_scheduling = true;
  e->profile.kv_dtype = models::Dtype::kFp8;
  e->profile.name += " (InferenceX)";
}

void ReadClosedLoopRows(const std::string& path, std::vector<MeasuredExperiment>* out) {
  std::ifstream in(path);
  if (!in) Fail(path, "cannot open");
  std::string line;
  std::getline(in, line);
  std::map<std::string, size_t> column;
  std::vector<std::string> header = SplitCsvLine(line);
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* name :
       {"id", "model_path", "system", "backend_version", "isl", "osl", "gemm_quant_mode",
        "batch_size", "tp_size", "silicon_ttft_ms", "silicon_tpot_ms"}) {
    if (!column.count(name)) Fail(path + ":1", std::string("missing column '") + name + "'");
  }
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    std::vector<std::string> cells = SplitCsvLine(line);
    if (cells.size() != header.size()) {
      Fail(where, std::to_string(cells.size()) + " cells, the header has " +
                      std::to_string(header.size()));
    }
    auto cell = [&](const char* name) { return cells[column[name]]; };
    auto number_of = [&](const char* name) { return ParseNumber(cell(name), where, name); };
    MeasuredExperiment e;
    e.kind = MeasuredExperiment::Kind::kClosedLoop;
    e.id = "aic-" + cell("id");
    e.source = where;
    const models::Dtype weights =
        cell("gemm_quant_mode") == "fp8" ? models::Dtype::kFp8 : models::Dtype::kBf16;
    e.profile =
        MakeProfile(ArchitectureOf(cell("model_path"), where), GpuOfSystem(cell("system"), where),
                    static_cast<int>(number_of("tp_size")), weights, where);
    e.profile.engine.async_scheduling = AsyncByDefault(cell("backend_version"));
    e.concurrency = static_cast<uint32_t>(number_of("batch_size"));
    if (e.profile.model.name == "llama-3.1-70b") ReplayAsInferenceX(&e);
    e.input_tokens = static_cast<uint32_t>(number_of("isl"));
    e.output_tokens = static_cast<uint32_t>(number_of("osl"));
    e.label = e.profile.name + " " + std::to_string(e.input_tokens) + "→" +
              std::to_string(e.output_tokens) + " c" + std::to_string(e.concurrency);
    e.values.push_back({MeasuredMetric::kTtftMean, -1, number_of("silicon_ttft_ms")});
    e.values.push_back({MeasuredMetric::kItlMean, -1, number_of("silicon_tpot_ms")});
    out->push_back(e);
  }
}

void ReadStagedRuns(const std::string& path, std::vector<MeasuredExperiment>* out) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    Fail(path, e.what());
  }
  for (const YAML::Node& x : root["experiments"]) {
    const std::string where = path + ":" + std::to_string(x.Mark().line + 1);
    try {
      MeasuredExperiment e;
      e.kind = MeasuredExperiment::Kind::kStaged;
      e.id = "vllm-" + x["id"].as<std::string>();
      e.source = where;
      const YAML::Node vllm = x["vllm"];
      e.profile = MakeProfile(ArchitectureOf(x["model"].as<std::string>(), where), "h100-sxm",
                              vllm["tensor_parallel_size"].as<int>(), models::Dtype::kBf16, where);
      models::EngineSettings& engine = e.profile.engine;
      engine.max_num_batched_tokens = vllm["max_num_batched_tokens"].as<int>();
      engine.max_num_seqs = vllm["max_num_seqs"].as<int>();
      engine.gpu_memory_utilization = vllm["gpu_memory_utilization"].as<double>();
      engine.cpu_offload_bytes = vllm["cpu_offload_gb_per_gpu"].as<double>() * (1 << 30);
      engine.async_scheduling = true;  // vllm/vllm-openai:v0.15.1
      const YAML::Node w = x["workload"];
      for (const YAML::Node& s : w["stages"]) {
        e.stages.push_back({s["rate_rps"].as<double>(), s["duration_s"].as<double>(),
                            s["requests_sent"].as<uint64_t>()});
      }
      const YAML::Node p = w["prompts"];
      e.prompts.groups = p["num_groups"].as<uint32_t>();
      e.prompts.prompts_per_group = p["prompts_per_group"].as<uint32_t>();
      e.prompts.system_tokens = models::InferencePerfLength::Fixed(static_cast<double>(
          std::lround(p["system_prompt_len_tokens"].as<double>() * kRetokenisation)));
      e.prompts.question_tokens = models::InferencePerfLength::Fixed(static_cast<double>(
          std::lround(p["question_len_tokens"].as<double>() * kRetokenisation)));
      e.prompts.output_tokens =
          models::InferencePerfLength::Fixed(w["output_len_tokens"].as<double>());
      e.label = e.profile.name + " " + w["preset"].as<std::string>();
      e.output_len_derived.assign(e.stages.size() + 1, 0);
      for (const YAML::Node& m : x["measured"]) {
        const int stage = m["stage"].as<int>();
        if (stage < -1 || stage >= static_cast<int>(e.stages.size())) {
          Fail(where, "measured stage " + std::to_string(stage) + " is not a stage of the run");
        }
        e.output_len_derived[stage + 1] = m["output_len_mean_tokens_derived"].as<double>();
        const std::pair<MeasuredMetric, const char*> fields[] = {
            {MeasuredMetric::kTtftMean, "ttft_mean_ms"}, {MeasuredMetric::kTtftP90, "ttft_p90_ms"},
            {MeasuredMetric::kTtftP99, "ttft_p99_ms"},   {MeasuredMetric::kE2eMean, "e2e_mean_ms"},
            {MeasuredMetric::kE2eP90, "e2e_p90_ms"},     {MeasuredMetric::kE2eP99, "e2e_p99_ms"},
            {MeasuredMetric::kItlMean, "itl_mean_ms"}};
        for (const auto& [metric, key] : fields) {
          e.values.push_back({metric, stage, m[key].as<double>()});
        }
      }
      out->push_back(e);
    } catch (const YAML::Exception& error) {
      Fail(where, std::string("cannot read the experiment: ") + error.what());
    }
  }
}

}  // namespace

double MeasuredExperiment::PrefillDemandShare() const {
  if (kind != Kind::kClosedLoop) return 0;
  double ttft = 0, tpot = 0;
  for (const MeasuredValue& v : values) {
    if (v.metric == MeasuredMetric::kTtftMean) ttft = v.ms / 1e3;
    if (v.metric == MeasuredMetric::kItlMean) tpot = v.ms / 1e3;
  }
  const double cycle = ttft + (output_tokens - 1) * tpot;
  const double demand = concurrency * static_cast<double>(input_tokens) / cycle;
  // Seconds per prompt token on one GPU of the TP group, at 100% of each peak:
  // the linear layers, the all-reduces, and attention at the mean context.
  const models::ModelArchitecture& m = profile.model;
  const double tp = profile.tensor_parallel;
  double per_token = 2 * m.ActiveLinearParams() / tp / profile.gpu.PeakFlops(profile.weight_dtype);
  if (tp > 1)
    per_token += 2.0 * m.layers * m.hidden * 2 * 2 * (tp - 1) / tp / profile.gpu.link_bytes_per_s;
  per_token += 4.0 * m.layers * m.heads * m.head_dim * (input_tokens / 2.0) / tp /
               profile.gpu.PeakFlops(models::Dtype::kBf16);
  return demand * per_token;
}

const char* MeasuredMetricName(MeasuredMetric m) {
  switch (m) {
    case MeasuredMetric::kTtftMean:
      return "TTFT mean";
    case MeasuredMetric::kTtftP90:
      return "TTFT p90";
    case MeasuredMetric::kTtftP99:
      return "TTFT p99";
    case MeasuredMetric::kE2eMean:
      return "E2E mean";
    case MeasuredMetric::kE2eP90:
      return "E2E p90";
    case MeasuredMetric::kE2eP99:
      return "E2E p99";
    case MeasuredMetric::kItlMean:
      return "ITL/TPOT mean";
  }
  return "?";
}

std::vector<MeasuredExperiment> ReadMeasured(const std::string& dir) {
  std::vector<MeasuredExperiment> experiments;
  ReadStagedRuns(dir + "/vllm_runs.yaml", &experiments);
  ReadClosedLoopRows(dir + "/aiconfigurator_vllm_h100_h200.csv", &experiments);
  return experiments;
}

}  // namespace kvroute::sim
