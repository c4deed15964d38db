#include "models/prompt_blocks.h"

#include <algorithm>
#include <bit>

#include "models/whole_block_hashes.h"
#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

// At least `n` elements of storage, allocated as a power of two: a vector
// lent from request to request then serves every chain of its class
// (SpareVectors), and a steady state stops allocating.
void Reserve(std::vector<uint64_t>* v, uint64_t n) {
  if (v->capacity() < n) v->reserve(std::bit_ceil(n));
}

// The full blocks of the prompt, and those the output completes after it.
struct BlockCounts {
  uint64_t prompt, output;
};
BlockCounts CountBlocks(std::span<const PromptSegment> segments, const PromptSegment& output,
                        uint32_t block_size) {
  const uint64_t prompt_tokens = TotalTokens(segments);
  const uint64_t prompt_blocks = prompt_tokens / block_size;
  return {prompt_blocks, (prompt_tokens + output.tokens) / block_size - prompt_blocks};
}

// Sizes both outputs once: a pooled request's vectors then take a long
// prompt's thousands of hashes without reallocating and copying on the way
// (on the Mooncake-length flagship at 100 QPS, where most requests wait with
// their hashes, that growth cost a fifth of the page faults and most of the
// time in memmove).
void ReserveBlocks(std::span<const PromptSegment> segments, const PromptSegment& output,
                   uint32_t block_size, std::vector<uint64_t>* prompt_out,
                   std::vector<uint64_t>* output_out) {
  const BlockCounts blocks = CountBlocks(segments, output, block_size);
  Reserve(prompt_out, blocks.prompt);
  Reserve(output_out, blocks.output);
}

}  // namespace

void BlockHasher::AppendRange(const PromptSegment& segment, uint32_t begin, uint32_t end,
                              std::vector<uint64_t>* out) {
  uint32_t offset = begin;
  if (filled_ > 0 && offset < end) offset = AppendPiece(segment, offset, end, out);
  // The blocks wholly inside the range, each one piece starting empty
  // (content 0): the loop that hashes long prompts (whole_block_hashes.h).
  const uint32_t whole = (end - offset) / block_size_;
  if (whole > 0) {
    const size_t first = out->size();
    out->resize(first + whole);
    chain_ = HashWholeBlocks(chain_, segment.salt, offset, block_size_, whole, out->data() + first);
    offset += whole * block_size_;
  }
  if (offset < end) AppendPiece(segment, offset, end, out);
}

uint32_t BlockHasher::AppendPiece(const PromptSegment& segment, uint32_t offset, uint32_t end,
                                  std::vector<uint64_t>* out) {
  const uint32_t piece = std::min(end - offset, block_size_ - filled_);
  const uint64_t where = (static_cast<uint64_t>(offset) << 32) | piece;
  content_ = sim::Combine(content_, sim::Combine(segment.salt, where));
  filled_ += piece;
  if (filled_ == block_size_) {
    chain_ = sim::ChainBlockHash(chain_, content_);
    out->push_back(chain_);
    content_ = 0;
    filled_ = 0;
  }
  return offset + piece;
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
  ReserveBlocks(segments, output, block_size, prompt_out, output_out);
  BlockHasher hasher(block_size);
  for (const PromptSegment& segment : segments) hasher.Append(segment, prompt_out);
  hasher.Append(output, output_out);
}

void SequenceHasher::Hash(std::span<const PromptSegment> segments, const PromptSegment& output,
                          std::vector<uint64_t>* prompt_out, std::vector<uint64_t>* output_out) {
  prompt_out->clear();
  PrefixCursor start;
  HashRest(segments, output, &start, prompt_out, output_out);
}

void SequenceHasher::HashRest(std::span<const PromptSegment> segments, const PromptSegment& output,
                              PrefixCursor* at, std::vector<uint64_t>* prompt_out,
                              std::vector<uint64_t>* output_out) {
  output_out->clear();
  ReserveBlocks(segments, output, block_size_, prompt_out, output_out);
  HashPrefix(segments, UINT32_MAX, at, prompt_out);
  BlockHasher hasher(block_size_);
  hasher.set_state(at->state);
  Append(&hasher, output, output_out);
}

void SequenceHasher::HashPrefix(std::span<const PromptSegment> segments, uint32_t blocks,
                                PrefixCursor* at, std::vector<uint64_t>* out) {
  BlockHasher hasher(block_size_);
  hasher.set_state(at->state);
  while (out->size() < blocks && at->segment < segments.size()) {
    const PromptSegment& segment = segments[at->segment];
    // The tokens that complete the first `blocks`: a segment cut there is cut
    // where a block ends.
    const uint64_t need = (blocks - out->size()) * uint64_t{block_size_} - hasher.state().filled;
    const uint32_t left = segment.tokens - at->offset;
    // Hashed whole, even past `blocks`: a segment that repeats (from the
    // memory, which a cut segment bypasses), and one of which a cut would
    // spare few blocks (the cut costs a vector round, whole_block_hashes.h).
    const bool whole = left <= need || left - need < kMinCutBlocks * uint64_t{block_size_} ||
                       (at->offset == 0 && Repeats(hasher.state(), segment));
    if (whole) {
      if (at->offset == 0) {
        Append(&hasher, segment, out);  // whole, from the memory if it repeats
      } else {
        hasher.AppendRange(segment, at->offset, segment.tokens, out);
      }
      ++at->segment;
      at->offset = 0;
    } else {
      const auto cut = static_cast<uint32_t>(at->offset + need);
      hasher.AppendRange(segment, at->offset, cut, out);
      at->offset = cut;
    }
  }
  at->state = hasher.state();
}

bool SequenceHasher::Memorable(const BlockHasher::State& before,
                               const PromptSegment& segment) const {
  const uint64_t blocks = (uint64_t{before.filled} + segment.tokens) / block_size_;
  return blocks >= kMinBlocks && blocks <= kMaxBlocks;
}

uint64_t SequenceHasher::Key(const BlockHasher::State& before, const PromptSegment& segment) {
  if (slots_.empty()) {
    slots_.resize(kSlots);
    seen_.assign(kSeenSlots, 0);
  }
  return sim::Combine(sim::Combine(sim::Combine(before.chain, before.content), before.filled),
                      sim::Combine(segment.salt, segment.tokens));
}

bool SequenceHasher::Slot::Holds(const BlockHasher::State& start, const PromptSegment& of) const {
  return used && before == start && segment.salt == of.salt && segment.tokens == of.tokens;
}

bool SequenceHasher::Repeats(const BlockHasher::State& before, const PromptSegment& segment) {
  if (!Memorable(before, segment)) return false;
  const uint64_t key = Key(before, segment);
  if (slots_[key & (kSlots - 1)].Holds(before, segment)) return true;
  uint64_t& seen = seen_[(key >> 32) & (kSeenSlots - 1)];
  if (seen == key) return true;
  seen = key;
  return false;
}

void SequenceHasher::Append(BlockHasher* hasher, const PromptSegment& segment,
                            std::vector<uint64_t>* out) {
  const BlockHasher::State before = hasher->state();
  if (!Memorable(before, segment)) {
    hasher->Append(segment, out);
    return;
  }
  const uint64_t key = Key(before, segment);
  Slot& slot = slots_[key & (kSlots - 1)];
  if (slot.Holds(before, segment)) {
    out->insert(out->end(), slot.hashes.begin(), slot.hashes.end());
    hasher->set_state(slot.after);
    return;
  }
  uint64_t& seen = seen_[(key >> 32) & (kSeenSlots - 1)];
  if (seen != key) {  // seen for the first time: hashed, not kept
    seen = key;
    hasher->Append(segment, out);
    return;
  }
  const size_t first = out->size();
  hasher->Append(segment, out);
  if (!slot.used) slot.hashes.reserve(kMaxBlocks);
  slot.used = true;
  slot.before = before;
  slot.after = hasher->state();
  slot.segment = segment;
  slot.hashes.assign(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
}

void SequenceHasher::SpareVectors::Keep(std::vector<uint64_t>* v) {
  if (v->capacity() == 0) return;
  const size_t c = std::bit_width(v->capacity()) - 1;
  if (c >= classes_.size()) classes_.resize(c + 1);
  v->clear();
  classes_[c].emplace_back();
  classes_[c].back().swap(*v);  // v gets the new entry's empty vector
}

void SequenceHasher::SpareVectors::Take(std::vector<uint64_t>* v, uint64_t need) {
  if (v->capacity() > 0 || need == 0) return;
  // Every capacity in class c is at least 2^c: that of need's next power of
  // two holds it. A larger class's vector is not lent: each class keeps as
  // many vectors as its own chains need at once.
  const size_t c = std::bit_width(need - 1);
  if (c >= classes_.size() || classes_[c].empty()) {
    Reserve(v, need);
    return;
  }
  v->swap(classes_[c].back());
  classes_[c].pop_back();
}

void SequenceHasher::GiveBack(std::vector<uint64_t>* prompt, std::vector<uint64_t>* output) {
  spare_prompts_.Keep(prompt);
  spare_outputs_.Keep(output);
}

void SequenceHasher::Lend(std::span<const PromptSegment> segments, const PromptSegment& output,
                          std::vector<uint64_t>* prompt, std::vector<uint64_t>* output_out) {
  const BlockCounts blocks = CountBlocks(segments, output, block_size_);
  spare_prompts_.Take(prompt, blocks.prompt);
  spare_outputs_.Take(output_out, blocks.output);
}

uint32_t TotalTokens(std::span<const PromptSegment> segments) {
  uint32_t total = 0;
  for (const PromptSegment& s : segments) total += s.tokens;
  return total;
}

}  // namespace kvroute::models
