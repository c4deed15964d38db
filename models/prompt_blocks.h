// A prompt described as a few segments of tokens (system prompt, document
// chunks, past turns, new tokens) rather than token by token (DESIGN.md,
// "Performance notes"), and the chained block hashes it yields.
#ifndef KVROUTE_MODELS_PROMPT_BLOCKS_H_
#define KVROUTE_MODELS_PROMPT_BLOCKS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace kvroute::models {

// `tokens` tokens whose content is named by `salt`: two segments with the same
// salt hold the same tokens, so equal prefixes of segments hash equally.
struct PromptSegment {
  uint64_t salt = 0;
  uint32_t tokens = 0;
};

// The hash of the empty prefix, the chain's starting point.
inline constexpr uint64_t kRootBlockHash = 0x6b767261756f7465ULL;

// Appends to `out` (cleared first) the chained hash of every full block of the
// concatenated segments. A block's content is the (salt, offset, length) of
// each segment piece inside it, so a block straddling two segments is shared
// only by prompts that have both pieces. REQUIRES: block_size >= 1.
void HashPromptBlocks(std::span<const PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* out);

uint32_t TotalTokens(std::span<const PromptSegment> segments);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROMPT_BLOCKS_H_
