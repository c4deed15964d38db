#include "models/prompt_blocks.h"

#include <algorithm>

#include "sim/core/hashing.h"

namespace kvroute::models {

void HashPromptBlocks(std::span<const PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* out) {
  out->clear();
  uint64_t chain = kRootBlockHash;
  uint64_t content = 0;  // the pieces of the block being filled
  uint32_t filled = 0;   // tokens in that block so far
  for (const PromptSegment& segment : segments) {
    uint32_t offset = 0;
    while (offset < segment.tokens) {
      uint32_t piece = std::min(segment.tokens - offset, block_size - filled);
      uint64_t where = (static_cast<uint64_t>(offset) << 32) | piece;
      content = sim::Combine(content, sim::Combine(segment.salt, where));
      offset += piece;
      filled += piece;
      if (filled == block_size) {
        chain = sim::ChainBlockHash(chain, content);
        out->push_back(chain);
        content = 0;
        filled = 0;
      }
    }
  }
}

uint32_t TotalTokens(std::span<const PromptSegment> segments) {
  uint32_t total = 0;
  for (const PromptSegment& s : segments) total += s.tokens;
  return total;
}

}  // namespace kvroute::models
