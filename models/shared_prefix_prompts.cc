#include "models/shared_prefix_prompts.h"

#include <utility>

#include "models/prompt_salts.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {

SharedPrefixPrompts::SharedPrefixPrompts(const SharedPrefixConfig& config, uint64_t seed)
    : prompts_per_group(config.prompts_per_group) {
  const uint32_t prompts = config.groups * config.prompts_per_group;
  for (uint32_t p = 0; p < prompts; ++p) order.push_back(p);
  // Fixed lengths draw nothing, so a fixed workload's streams are unchanged.
  sim::RandomStream lengths(seed, "workload.shared_prefix.lengths");
  for (uint32_t g = 0; g < config.groups; ++g) {
    system_tokens.push_back(config.system_tokens.Draw(lengths));
  }
  for (uint32_t g = 0; g < config.groups; ++g) {
    for (uint32_t i = 0; i < config.prompts_per_group; ++i) {
      question_tokens.push_back(config.question_tokens.Draw(lengths));
    }
    for (uint32_t i = 0; i < config.prompts_per_group; ++i) {
      output_tokens.push_back(config.output_tokens.Draw(lengths));
    }
  }
  // One uniform permutation when the generator starts (numpy's permutation
  // there, Fisher–Yates here: the same distribution, not the same draws).
  sim::RandomStream shuffle(seed, "workload.shared_prefix.shuffle");
  for (uint32_t i = prompts; i > 1; --i) {
    std::swap(order[i - 1], order[shuffle.UniformInt(i)]);
  }
}

void SharedPrefixPrompts::AppendSegments(uint32_t prompt, std::vector<PromptSegment>* out) const {
  const uint32_t g = group(prompt);
  if (system_tokens[g] > 0) {
    out->push_back({sim::Combine(kSharedPrefixSystemSalt, g), system_tokens[g]});
  }
  if (question_tokens[prompt] > 0) {
    out->push_back({sim::Combine(kSharedPrefixQuestionSalt, prompt), question_tokens[prompt]});
  }
}

}  // namespace kvroute::models
