#include "models/prompt_blocks.h"

#include <algorithm>

#include "sim/core/hashing.h"

namespace kvroute::models {

void BlockHasher::Append(const PromptSegment& segment, std::vector<uint64_t>* out) {
  uint32_t offset = 0;
  while (offset < segment.tokens) {
    uint32_t piece = std::min(segment.tokens - offset, block_size_ - filled_);
    uint64_t where = (static_cast<uint64_t>(offset) << 32) | piece;
    content_ = sim::Combine(content_, sim::Combine(segment.salt, where));
    offset += piece;
    filled_ += piece;
    if (filled_ == block_size_) {
      chain_ = sim::ChainBlockHash(chain_, content_);
      out->push_back(chain_);
      content_ = 0;
      filled_ = 0;
    }
  }
}

void HashPromptBlocks(std::span<const PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* out) {
  out->clear();
  BlockHasher hasher(block_size);
  for (const PromptSegment& segment : segments) hasher.Append(segment, out);
}

void HashSequenceBlocks(std::span<const PromptSegment> segments, const PromptSegment& output,
                        uint32_t block_size, std::vector<uint64_t>* prompt_out,
                        std::vector<uint64_t>* output_out) {
  prompt_out->clear();
  output_out->clear();
  BlockHasher hasher(block_size);
  for (const PromptSegment& segment : segments) hasher.Append(segment, prompt_out);
  hasher.Append(output, output_out);
}

uint32_t TotalTokens(std::span<const PromptSegment> segments) {
  uint32_t total = 0;
  for (const PromptSegment& s : segments) total += s.tokens;
  return total;
}

}  // namespace kvroute::models
