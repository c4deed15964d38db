#include "models/profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/builtin_profiles.h"
#include "sim/core/yaml_map.h"

namespace kvroute::models {
namespace {

// Bytes per element of a dtype name.
double DtypeBytes(sim::YamlMap& map, const std::string& key) {
  std::string dtype = map.String(key, "bf16");
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8") return 1;
  map.Fail(key, "unknown dtype '" + dtype + "' (valid: bf16, fp16, fp8)");
}

Hardware ParseHardware(sim::YamlMap map) {
  Hardware h;
  h.name = map.String("name", "");
  map.String("source", "");
  h.peak_flops_16bit = map.RequiredNumber("peak_flops_16bit", 1);
  h.peak_flops_fp8 = map.Number("peak_flops_fp8", h.peak_flops_16bit, 1);
  h.hbm_bytes_per_s = map.RequiredNumber("hbm_bytes_per_s", 1);
  h.memory_bytes = map.RequiredNumber("memory_bytes", 1);
  h.nvlink_bytes_per_s = map.Number("nvlink_bytes_per_s", 0, 0);
  map.Finish();
  return h;
}

ModelArchitecture ParseModel(sim::YamlMap map) {
  ModelArchitecture m;
  m.name = map.String("name", "");
  map.String("source", "");
  m.layers = static_cast<int>(map.Integer("layers", 0, 1, 1000));
  m.hidden = static_cast<int>(map.Integer("hidden", 0, 1, 1 << 20));
  m.heads = static_cast<int>(map.Integer("heads", 0, 1, 4096));
  m.kv_heads = static_cast<int>(map.Integer("kv_heads", 0, 1, 4096));
  m.head_dim = static_cast<int>(map.Integer("head_dim", 0, 1, 4096));
  m.ffn = static_cast<int>(map.Integer("ffn", 0, 1, 1 << 22));
  m.vocab = static_cast<int>(map.Integer("vocab", 0, 1, 1 << 24));
  m.tied_embeddings = map.Bool("tied_embeddings", false);
  for (const char* key : {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"}) {
    if (!sim::YamlAt(map.node(), key).IsDefined()) map.Fail(key, "required key is missing");
  }
  map.Finish();
  return m;
}

CalibrationPoint ParsePoint(sim::YamlMap map, bool held) {
  using Kind = CalibrationPoint::Kind;
  CalibrationPoint p;
  p.held = held;
  std::string kind = map.String("kind", "");
  if (kind == "linear")
    p.kind = Kind::kLinear;
  else if (kind == "prefill")
    p.kind = Kind::kPrefill;
  else if (kind == "decode")
    p.kind = Kind::kDecode;
  else if (kind == "decode_range")
    p.kind = Kind::kDecodeRange;
  else
    map.Fail("kind", "unknown calibration kind '" + kind +
                         "' (valid: linear, prefill, decode, decode_range)");
  p.tensor_parallel = static_cast<int>(map.Integer("tensor_parallel", 0, 1, 64));
  p.source = map.String("source", "");
  if (p.source.empty()) map.Fail("source", "every calibration point must cite its source");
  switch (p.kind) {
    case Kind::kLinear:
      p.tokens = static_cast<int>(map.Integer("tokens", 0, 1, 1 << 24));
      p.ms = map.RequiredNumber("ms", 1e-9);
      break;
    case Kind::kPrefill:
      p.new_tokens = static_cast<int>(map.Integer("new_tokens", 0, 1, 1 << 24));
      p.context_tokens =
          static_cast<int>(map.Integer("context_tokens", p.new_tokens, p.new_tokens, 1 << 24));
      p.ms = map.RequiredNumber("ms", 1e-9);
      break;
    case Kind::kDecode:
    case Kind::kDecodeRange:
      p.batch = static_cast<int>(map.Integer("batch", 0, 1, 1 << 20));
      p.context_tokens = static_cast<int>(map.Integer("context_tokens", 0, 1, 1 << 24));
      if (p.kind == Kind::kDecode) {
        p.ms = map.RequiredNumber("ms", 1e-9);
      } else {
        p.min_ms = map.RequiredNumber("min_ms", 1e-9);
        p.max_ms = map.RequiredNumber("max_ms", p.min_ms);
      }
      break;
  }
  map.Finish();
  return p;
}

std::vector<CalibrationPoint> ParsePoints(const std::string& source, const YAML::Node& list,
                                          const std::string& path, bool held) {
  std::vector<CalibrationPoint> points;
  if (!list.IsDefined()) return points;
  if (!list.IsSequence()) sim::FailAt(source, list, path, "expected a list");
  for (size_t i = 0; i < list.size(); ++i) {
    points.push_back(
        ParsePoint(sim::YamlMap(source, list[i], path + "[" + std::to_string(i) + "]"), held));
  }
  return points;
}

Profile ParseDocument(const YAML::Node& root, const std::string& source) {
  sim::YamlMap top(source, root, "");
  Profile p;
  p.file = source;
  top.Required("name");
  p.name = top.String("name", "");
  p.description = top.String("description", "");
  p.hardware = ParseHardware(sim::YamlMap(source, top.Required("hardware"), "hardware"));
  p.model = ParseModel(sim::YamlMap(source, top.Required("model"), "model"));
  p.weight_bytes_per_param = DtypeBytes(top, "weight_dtype");
  p.kv_bytes_per_element = DtypeBytes(top, "kv_dtype");
  p.tensor_parallel = static_cast<int>(top.Integer("tensor_parallel", 1, 1, 64));
  p.block_size_tokens = static_cast<int>(top.Integer("block_size_tokens", 16, 1, 4096));

  sim::YamlMap eff(source, top.Required("efficiency"), "efficiency");
  p.linear_compute_efficiency = eff.RequiredNumber("linear_compute", 1e-6, 1);
  p.linear_memory_efficiency = eff.RequiredNumber("linear_memory", 1e-6, 1);
  p.linear_fixed_s = eff.Number("linear_fixed_s", 0, 0, 10);
  p.attention_compute_efficiency = eff.RequiredNumber("attention_compute", 1e-6, 1);
  p.attention_memory_efficiency = eff.RequiredNumber("attention_memory", 1e-6, 1);
  p.allreduce_efficiency = eff.Number("allreduce_bandwidth", 1, 1e-6, 1);
  p.allreduce_latency_s = eff.Number("allreduce_latency_s", 0, 0, 1);
  p.iteration_overhead_s = eff.Number("iteration_overhead_s", 0, 0, 10);
  eff.Finish();

  if (YAML::Node memory = top.Take("memory"); memory.IsDefined()) {
    sim::YamlMap m(source, memory, "memory");
    p.gpu_memory_utilization = m.Number("gpu_memory_utilization", 0.9, 1e-3, 1);
    p.activation_reserve_bytes = m.Number("activation_reserve_bytes", 0, 0);
    m.Finish();
  }
  if (YAML::Node calibration = top.Take("calibration"); calibration.IsDefined()) {
    sim::YamlMap c(source, calibration, "calibration");
    p.calibration_tolerance = c.Number("tolerance", 0.15, 0, 0.25);
    p.calibration = ParsePoints(source, c.Take("points"), "calibration.points", true);
    for (CalibrationPoint& x :
         ParsePoints(source, c.Take("excluded"), "calibration.excluded", false)) {
      p.calibration.push_back(x);
    }
    c.Finish();
  }
  top.Finish();
  if (p.tensor_parallel > 1 && p.hardware.nvlink_bytes_per_s <= 0) {
    top.Fail("tensor_parallel", "tensor parallelism needs hardware.nvlink_bytes_per_s");
  }
  return p;
}

std::vector<Profile> LoadBuiltins() {
  std::vector<Profile> profiles;
  for (const BuiltinProfileFile& f : BuiltinProfileFiles()) {
    profiles.push_back(ParseProfile(f.text, "models/profiles/" + f.file));
  }
  std::sort(profiles.begin(), profiles.end(),
            [](const Profile& a, const Profile& b) { return a.name < b.name; });
  return profiles;
}

}  // namespace

std::string CalibrationPoint::Describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kLinear:
      out << "linear layers, " << tokens << " tokens";
      break;
    case Kind::kPrefill:
      out << "prefill " << new_tokens << " tokens";
      if (context_tokens != new_tokens) out << " at context " << context_tokens;
      break;
    case Kind::kDecode:
    case Kind::kDecodeRange:
      out << "decode batch " << batch << " at context " << context_tokens;
      break;
  }
  if (tensor_parallel > 0) out << ", TP" << tensor_parallel;
  return out.str();
}

Profile ParseProfile(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw sim::YamlError(source + ":" + std::to_string(e.mark.line + 1) +
                         ": invalid YAML: " + e.msg);
  }
  return ParseDocument(root, source);
}

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

double Profile::KvPoolBytes() const {
  return tensor_parallel *
             (hardware.memory_bytes * gpu_memory_utilization - activation_reserve_bytes) -
         WeightBytes();
}

int64_t Profile::KvCapacityBlocks() const {
  double usable = KvPoolBytes();
  if (usable <= 0) return 0;
  double tokens = usable / KvBytesPerToken();
  return static_cast<int64_t>(std::floor(tokens / block_size_tokens));
}

const std::vector<Profile>& BuiltinProfiles() {
  static const std::vector<Profile> profiles = LoadBuiltins();
  return profiles;
}

Profile FindProfile(std::string_view name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") {
    std::ifstream in{std::string(name)};
    if (!in) throw std::invalid_argument(std::string(name) + ": cannot open profile file");
    std::stringstream text;
    text << in.rdbuf();
    return ParseProfile(text.str(), std::string(name));
  }
  std::string valid;
  for (const Profile& p : BuiltinProfiles()) {
    if (p.name == name) return p;
    valid += (valid.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown profile '" + std::string(name) + "' (valid: " + valid +
                              ", or a path to a profile .yaml file" +
                              sim::DidYouMean(name, sim::SplitNames(valid)) + ")");
}

}  // namespace kvroute::models
