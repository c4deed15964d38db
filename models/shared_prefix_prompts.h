// The prompts of inference-perf's shared-prefix workload, drawn once when the
// generator starts (inference_perf/datagen/synthetic/shared_prefix_datagen.py,
// SharedPrefixDataGenerator.__init__ and _generate_prompts): a system prompt
// length per group, then per group its prompts' question lengths and output
// lengths, then one shuffle of the prompts. Prompt p belongs to group
// p / prompts_per_group; its text is the group's system prompt followed by
// its own question.
#ifndef KVROUTE_MODELS_SHARED_PREFIX_PROMPTS_H_
#define KVROUTE_MODELS_SHARED_PREFIX_PROMPTS_H_

#include <cstdint>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/workload.h"

namespace kvroute::models {

struct SharedPrefixPrompts {
  // The draws depend on the seed only, so every stage and every policy sees
  // the same prompts in the same order.
  SharedPrefixPrompts(const SharedPrefixConfig& config, uint64_t seed);

  uint32_t prompts() const { return static_cast<uint32_t>(question_tokens.size()); }
  uint32_t group(uint32_t prompt) const { return prompt / prompts_per_group; }
  // The prompt sent k-th (k counts from 0 in each stage).
  uint32_t PromptOf(uint64_t k) const { return order[k % order.size()]; }
  // Appends the prompt's segments: its group's system prompt, then its
  // question (a length of 0 appends nothing).
  void AppendSegments(uint32_t prompt, std::vector<PromptSegment>* out) const;

  uint32_t prompts_per_group;
  std::vector<uint32_t> order;            // prompt indices in the order they are sent
  std::vector<uint32_t> system_tokens;    // per group
  std::vector<uint32_t> question_tokens;  // per prompt
  std::vector<uint32_t> output_tokens;    // per prompt
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_SHARED_PREFIX_PROMPTS_H_
