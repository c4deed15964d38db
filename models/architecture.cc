#include "models/architecture.h"

#include <cmath>

#include "sim/core/yaml_map.h"

namespace kvroute::models {

double ModelArchitecture::AttentionParamsPerLayer() const {
  const double h = hidden;
  const double q_width = static_cast<double>(heads) * head_dim;
  const double kv_width = static_cast<double>(kv_heads) * head_dim;
  return h * q_width + 2 * h * kv_width + q_width * h;
}

double ModelArchitecture::ExpertParams() const {
  return 3.0 * hidden * (moe.enabled() ? moe.expert_intermediate : intermediate);
}

double ModelArchitecture::DenseMlpParamsPerLayer() const { return 3.0 * hidden * intermediate; }

double ModelArchitecture::ActiveLinearParams() const {
  double mlp = moe.enabled() ? (moe.active_experts + moe.shared_experts) * ExpertParams()
                             : DenseMlpParamsPerLayer();
  return layers * (AttentionParamsPerLayer() + mlp);
}

double ModelArchitecture::TotalParams() const {
  double mlp = moe.enabled() ? (moe.experts + moe.shared_experts) * ExpertParams()
                             : DenseMlpParamsPerLayer();
  double embeddings = static_cast<double>(vocab) * hidden * (tied_embeddings ? 1 : 2);
  return layers * (AttentionParamsPerLayer() + mlp) + embeddings;
}

double ModelArchitecture::ExpectedExpertsTouched(double tokens) const {
  if (!moe.enabled()) return 0;
  const double e = moe.experts;
  return e * (1 - std::pow(1 - moe.active_experts / e, tokens));
}

double ModelArchitecture::WeightParamsRead(double tokens) const {
  double mlp = moe.enabled()
                   ? (ExpectedExpertsTouched(tokens) + moe.shared_experts) * ExpertParams()
                   : DenseMlpParamsPerLayer();
  return layers * (AttentionParamsPerLayer() + mlp) + LmHeadParams();
}

ModelArchitecture ParseArchitecture(const YAML::Node& root, const std::string& source) {
  sim::YamlMap map(source, root, "");
  ModelArchitecture m;
  m.file = source;
  map.Required("name");
  m.name = map.String("name", "");
  if (YAML::Node ids = map.Take("hf_ids"); ids.IsDefined()) {
    if (!ids.IsSequence()) map.Fail("hf_ids", "expected a list of checkpoint names");
    for (const YAML::Node& id : ids) m.hf_ids.push_back(id.as<std::string>());
  }
  for (const char* key :
       {"layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab"}) {
    map.Required(key);
  }
  m.layers = static_cast<int>(map.Integer("layers", 0, 1, 1000));
  m.hidden = static_cast<int>(map.Integer("hidden", 0, 1, 1 << 20));
  m.heads = static_cast<int>(map.Integer("heads", 0, 1, 4096));
  m.kv_heads = static_cast<int>(map.Integer("kv_heads", 0, 1, 4096));
  m.head_dim = static_cast<int>(map.Integer("head_dim", 0, 1, 4096));
  m.intermediate = static_cast<int>(map.Integer("intermediate", 0, 1, 1 << 22));
  m.vocab = static_cast<int>(map.Integer("vocab", 0, 1, 1 << 24));
  m.tied_embeddings = map.Bool("tied_embeddings", false);
  if (m.heads % m.kv_heads != 0) map.Fail("kv_heads", "must divide heads");
  if (YAML::Node moe = map.Take("moe"); moe.IsDefined()) {
    sim::YamlMap e(source, moe, "moe");
    e.Required("experts");
    e.Required("active_experts");
    e.Required("expert_intermediate");
    m.moe.experts = static_cast<int>(e.Integer("experts", 0, 1, 1 << 16));
    m.moe.active_experts =
        static_cast<int>(e.Integer("active_experts", 0, 1, static_cast<uint64_t>(m.moe.experts)));
    m.moe.expert_intermediate = static_cast<int>(e.Integer("expert_intermediate", 0, 1, 1 << 22));
    m.moe.shared_experts = static_cast<int>(e.Integer("shared_experts", 0, 0, 1 << 10));
    e.Finish();
  }
  map.Finish();
  return m;
}

}  // namespace kvroute::models
