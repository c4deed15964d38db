#include "models/shared_prefix_source.h"

#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr uint64_t kSystemSalt = 0x5350534953595354ULL;
constexpr uint64_t kQuestionSalt = 0x5350515545535449ULL;
constexpr uint64_t kOutputSalt = 0x53504f5554505554ULL;

}  // namespace

SharedPrefixSource::SharedPrefixSource(const WorkloadConfig& config, uint64_t seed, double qps,
                                       sim::Time end)
    : config_(config.shared_prefix),
      block_size_(static_cast<uint32_t>(config.block_size_tokens)),
      qps_(qps),
      end_(end),
      shares_(config.shared_prefix.groups, 1.0 / config.shared_prefix.groups),
      arrival_rng_(seed, "workload.arrivals"),
      hasher_(block_size_) {
  const uint32_t prompts = config_.groups * config_.prompts_per_group;
  for (uint32_t p = 0; p < prompts; ++p) order_.push_back(p);
  // Fixed lengths draw nothing, so a fixed workload's streams are unchanged.
  sim::RandomStream lengths(seed, "workload.shared_prefix.lengths");
  for (uint32_t g = 0; g < config_.groups; ++g) {
    system_tokens_.push_back(config_.system_tokens.Draw(lengths));
  }
  for (uint32_t g = 0; g < config_.groups; ++g) {
    for (uint32_t i = 0; i < config_.prompts_per_group; ++i) {
      question_tokens_.push_back(config_.question_tokens.Draw(lengths));
    }
    for (uint32_t i = 0; i < config_.prompts_per_group; ++i) {
      output_tokens_.push_back(config_.output_tokens.Draw(lengths));
    }
  }
  // Fisher–Yates, as random.shuffle does once when the generator starts.
  sim::RandomStream shuffle(seed, "workload.shared_prefix.shuffle");
  for (uint32_t i = prompts; i > 1; --i) {
    std::swap(order_[i - 1], order_[shuffle.UniformInt(i)]);
  }
}

bool SharedPrefixSource::Next(Request* out) {
  time_s_ += arrival_rng_.Exponential(qps_);
  const sim::Time arrival = sim::FromSeconds(time_s_);
  if (arrival >= end_) return false;
  const uint64_t id = next_id_++;
  const uint32_t prompt = order_[id % order_.size()];
  const uint32_t group = prompt / config_.prompts_per_group;
  segments_.clear();
  if (system_tokens_[group] > 0) {
    segments_.push_back({sim::Combine(kSystemSalt, group), system_tokens_[group]});
  }
  if (question_tokens_[prompt] > 0) {
    segments_.push_back({sim::Combine(kQuestionSalt, prompt), question_tokens_[prompt]});
  }
  out->id = id;
  out->arrival = arrival;
  out->key = group;
  out->tenant = group;
  out->session = id;
  out->prompt_tokens = TotalTokens(segments_);
  out->output_tokens = output_tokens_[prompt];
  hasher_.Hash(segments_, {sim::Combine(kOutputSalt, id), output_tokens_[prompt]},
               &out->block_hashes, &out->output_block_hashes);
  return true;
}

}  // namespace kvroute::models
