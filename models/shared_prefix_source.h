// inference-perf's shared-prefix workload (SharedPrefixConfig in workload.h):
// a fixed set of prompts, each a group's system prompt and its own question,
// sent over and over in one shuffled order, with Poisson arrivals at the load.
// As inference-perf's SharedPrefixDataGenerator does, the lengths are drawn
// once, when the generator starts: a system prompt length per group, then
// per group its prompts' question lengths and output lengths.
#ifndef KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_
#define KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_

#include <vector>

#include "models/request_source.h"
#include "models/workload.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {

class SharedPrefixSource : public RequestSource {
 public:
  // Requests arrive at `qps` (Poisson) until `end` (exclusive). The shuffle
  // depends on the seed only, so every stage and every policy sees the same
  // prompt order.
  SharedPrefixSource(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end);

  bool Next(Request* out) override;
  const std::vector<double>& key_shares() const override { return shares_; }
  std::span<const PromptSegment> segments() const override { return segments_; }
  std::vector<double> tenant_shares() const override { return shares_; }

 private:
  SharedPrefixConfig config_;
  uint32_t block_size_;
  double qps_;
  sim::Time end_;
  std::vector<uint32_t> order_;            // prompt indices in the order they are sent
  std::vector<uint32_t> system_tokens_;    // per group
  std::vector<uint32_t> question_tokens_;  // per prompt
  std::vector<uint32_t> output_tokens_;    // per prompt
  std::vector<double> shares_;             // per group
  sim::RandomStream arrival_rng_;
  double time_s_ = 0;
  uint64_t next_id_ = 0;
  std::vector<PromptSegment> segments_;
  SequenceHasher hasher_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_
