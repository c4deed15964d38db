// A model's architecture, as its config.json describes it (DESIGN.md,
// "Hardware and models as data"): what the cost model needs to count FLOPs
// and bytes, and the KV pool needs to size blocks. Models are data files
// (models/architectures/*.yaml, compiled in).
#ifndef KVROUTE_MODELS_ARCHITECTURE_H_
#define KVROUTE_MODELS_ARCHITECTURE_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace kvroute::models {

// Mixture of experts: every layer's MLP is `experts` experts of width
// `expert_intermediate`, of which `active_experts` serve each token (plus
// `shared_experts` that serve every token). None when experts == 0.
struct MoeConfig {
  int experts = 0;
  int active_experts = 0;
  int expert_intermediate = 0;
  int shared_experts = 0;

  bool enabled() const { return experts > 0; }
};

struct ModelArchitecture {
  std::string name;
  std::vector<std::string> hf_ids;  // Hugging Face checkpoints of this architecture
  std::string file;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int intermediate = 0;  // dense MLP width (unused when every layer is MoE)
  int vocab = 0;
  bool tied_embeddings = false;
  MoeConfig moe;

  // Parameters of one layer's attention projections (Q, K, V, O).
  double AttentionParamsPerLayer() const;
  // Parameters of one expert (gate, up, down), or of the dense MLP.
  double ExpertParams() const;
  double DenseMlpParamsPerLayer() const;
  // Linear parameters one token multiplies through, all layers: attention,
  // and the dense MLP or the active (and shared) experts. The LM head is
  // apart (it runs once per sampled sequence).
  double ActiveLinearParams() const;
  // Every parameter: all experts, embeddings and the LM head.
  double TotalParams() const;
  double LmHeadParams() const { return static_cast<double>(vocab) * hidden; }
  // Expected distinct experts one layer touches for a pass over `tokens`
  // tokens, each routed to active_experts of them uniformly at random:
  // E·(1 − (1 − k/E)^tokens) (as BLIS's roofline counts MoE weight reads).
  double ExpectedExpertsTouched(double tokens) const;
  // Weight parameters one forward pass over `tokens` tokens reads: attention,
  // the dense MLP or the experts touched, and the LM head.
  double WeightParamsRead(double tokens) const;
};

// Parses an architecture document; errors name `source`, the line and the
// key. Throws sim::YamlError.
ModelArchitecture ParseArchitecture(const YAML::Node& root, const std::string& source);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_ARCHITECTURE_H_
