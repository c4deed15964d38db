// Iteration time of one continuous-batching step as a function of the batch
// (DESIGN.md, "Cost model"). Two models share one interface: the roofline model
// of a profile, and a fixed-service-time model for queueing-theory validation.
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
  void AddPrefillChunk(int64_t context_before, int64_t tokens);
  void AddDecode(int64_t context);
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual sim::Time IterationTime(const BatchShape& batch) const = 0;
};

// Roofline: each part takes max(FLOPs / achieved FLOP/s, bytes / achieved
// bandwidth), with per-profile efficiency factors; see cost_model.cc.
class RooflineCostModel : public CostModel {
 public:
  explicit RooflineCostModel(const Profile& profile);
  sim::Time IterationTime(const BatchShape& batch) const override;

  // The linear layers alone for `tokens` tokens in one pass, in seconds: the
  // quantity Vidur's MLP profiles measure (the calibration points).
  double LinearSeconds(int64_t tokens) const;

 private:
  double AttentionSeconds(const BatchShape& batch) const;
  double AllReduceSeconds(int64_t tokens) const;

  Profile profile_;
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
