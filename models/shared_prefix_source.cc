#include "models/shared_prefix_source.h"

#include "models/prompt_salts.h"
#include "sim/core/hashing.h"

namespace kvroute::models {

SharedPrefixSource::SharedPrefixSource(const WorkloadConfig& config, uint64_t seed, double qps,
                                       sim::Time end, uint32_t stage)
    : prompts_(std::make_shared<const SharedPrefixPrompts>(config.shared_prefix, seed)),
      qps_(qps),
      end_(end),
      shares_(config.shared_prefix.groups, 1.0 / config.shared_prefix.groups),
      arrival_rng_(seed, "workload.arrivals"),
      hasher_(std::make_shared<SequenceHasher>(static_cast<uint32_t>(config.block_size_tokens))) {
  if (config.shared_prefix.multi_turn_chat) {
    chat_ = std::make_unique<SharedPrefixChat>(
        prompts_, static_cast<uint32_t>(config.block_size_tokens), stage);
  }
}

bool SharedPrefixSource::NextArrival(sim::Time* arrival) {
  time_s_ += arrival_rng_.Exponential(qps_);
  *arrival = sim::FromSeconds(time_s_);
  return *arrival < end_;
}

bool SharedPrefixSource::Next(Request* out) {
  sim::Time arrival;
  if (!NextArrival(&arrival)) return false;
  const uint64_t id = next_id_++;
  if (chat_ != nullptr) {
    const uint32_t user = chat_->UserOf(id);
    chat_->Claim(user, SharedPrefixChat::kNoClient);
    chat_->Emit(user, id, arrival, out);
    const auto prompt = chat_->prompt(user);
    segments_.assign(prompt.begin(), prompt.end());
    chat_->Release(user, true);
    return true;
  }
  const uint32_t prompt = prompts_->PromptOf(id);
  const uint32_t group = prompts_->group(prompt);
  segments_.clear();
  prompts_->AppendSegments(prompt, &segments_);
  out->id = id;
  out->arrival = arrival;
  out->key = group;
  out->tenant = group;
  out->session = id;
  out->prompt_tokens = TotalTokens(segments_);
  out->output_tokens = prompts_->output_tokens[prompt];
  out->hashes.HashLater(hasher_, segments_,
                        {sim::Combine(kSharedPrefixOutputSalt, id), out->output_tokens});
  return true;
}

}  // namespace kvroute::models
