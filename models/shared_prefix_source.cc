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
  if (config_.system_tokens > 0) {
    segments_.push_back({sim::Combine(kSystemSalt, group), config_.system_tokens});
  }
  segments_.push_back({sim::Combine(kQuestionSalt, prompt), config_.question_tokens});
  out->id = id;
  out->arrival = arrival;
  out->key = group;
  out->tenant = group;
  out->session = id;
  out->prompt_tokens = TotalTokens(segments_);
  out->output_tokens = config_.output_tokens;
  hasher_.Hash(segments_, {sim::Combine(kOutputSalt, id), config_.output_tokens},
               &out->block_hashes, &out->output_block_hashes);
  return true;
}

}  // namespace kvroute::models
