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

// Hashes a token sequence given segment by segment into the chained hash of
// each full block. A block's content is the (salt, offset, length) of each
// segment piece inside it, so a block straddling two segments is shared only
// by sequences that have both pieces. Appending the output after the prompt
// continues the prompt's chain, so a later prompt that repeats prompt and
// output hashes those blocks equally (generated-token caching).
class BlockHasher {
 public:
  // REQUIRES: block_size >= 1.
  explicit BlockHasher(uint32_t block_size) : block_size_(block_size) {}

  // Appends the segment's tokens; the hash of every block they complete is
  // pushed onto `out`.
  void Append(const PromptSegment& segment, std::vector<uint64_t>* out) {
    AppendRange(segment, 0, segment.tokens, out);
  }
  // Appends the segment's tokens [begin, end). Appending a segment in ranges
  // cut where a block ends gives Append's hashes. REQUIRES: begin <= end <=
  // segment.tokens.
  void AppendRange(const PromptSegment& segment, uint32_t begin, uint32_t end,
                   std::vector<uint64_t>* out);

  // Where the hasher is: a segment's hashes depend on this and the segment.
  struct State {
    uint64_t chain = kRootBlockHash;
    uint64_t content = 0;
    uint32_t filled = 0;
    bool operator==(const State&) const = default;
  };
  State state() const { return {chain_, content_, filled_}; }
  void set_state(const State& s) {
    chain_ = s.chain;
    content_ = s.content;
    filled_ = s.filled;
  }
  uint32_t block_size() const { return block_size_; }

 private:
  // Adds the segment's tokens from `offset` up to the end of the block being
  // filled or `end`, whichever comes first; returns where it stopped.
  uint32_t AppendPiece(const PromptSegment& segment, uint32_t offset, uint32_t end,
                       std::vector<uint64_t>* out);

  uint32_t block_size_;
  uint64_t chain_ = kRootBlockHash;
  uint64_t content_ = 0;  // the pieces of the block being filled
  uint32_t filled_ = 0;   // tokens in that block so far
};

// Appends to `out` (cleared first) the chained hash of every full block of the
// concatenated segments. REQUIRES: block_size >= 1.
void HashPromptBlocks(std::span<const PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* out);

// Hashes the prompt's full blocks into `prompt_out` and, continuing the same
// chain, the full blocks that `output` completes into `output_out` (both
// cleared first).
void HashSequenceBlocks(std::span<const PromptSegment> segments, const PromptSegment& output,
                        uint32_t block_size, std::vector<uint64_t>* prompt_out,
                        std::vector<uint64_t>* output_out);

// HashSequenceBlocks with a memory: what a long segment hashed to after a
// given hasher state is kept (a direct-mapped table), so the system prompts,
// documents and session histories a workload sends again and again are hashed
// once, not once per request. The hashes are HashSequenceBlocks'. A segment
// is kept the second time it is seen (a table of the keys seen once), so the
// unique new tokens of every request neither pay for a copy nor push out what
// repeats. Storage is allocated the first time each table slot is used,
// never after.
class SequenceHasher {
 public:
  explicit SequenceHasher(uint32_t block_size) : block_size_(block_size) {}
  uint32_t block_size() const { return block_size_; }

  void Hash(std::span<const PromptSegment> segments, const PromptSegment& output,
            std::vector<uint64_t>* prompt_out, std::vector<uint64_t>* output_out);

  // HashPrefix cuts a segment only where this many blocks or more are left.
  static constexpr uint32_t kMinCutBlocks = 64;

  // Where a prompt's hashing stopped, so that it can go on.
  struct PrefixCursor {
    BlockHasher::State state;
    uint32_t segment = 0;  // the next segment to hash
    uint32_t offset = 0;   // tokens of it already hashed
  };
  // Extends `out`, the first prompt hashes as far as `at` has hashed them
  // (none for a new cursor), to at least the first `blocks` (all the
  // prompt's, if it has fewer): HashSequenceBlocks' prompt hashes, the first
  // so many. A segment is cut where the last of them ends, unless it repeats
  // (then the memory gives it whole) or little of it would be left.
  void HashPrefix(std::span<const PromptSegment> segments, uint32_t blocks, PrefixCursor* at,
                  std::vector<uint64_t>* out);
  // Hash's result, for a prompt whose first hashes HashPrefix put in
  // `prompt_out` up to `at`: the rest of the prompt, then the output.
  void HashRest(std::span<const PromptSegment> segments, const PromptSegment& output,
                PrefixCursor* at, std::vector<uint64_t>* prompt_out,
                std::vector<uint64_t>* output_out);

  // Hash vectors of finished requests, lent to the next requests hashed
  // (request_hashes.h). Where requests are hashed in another order than their
  // pool slots are reused (an overloaded run's slots mostly hold requests that
  // wait and are never hashed), the hashes' memory is then that of the
  // requests in flight, not of every request ever hashed, and a new request
  // does not fault in fresh pages for its thousands of hashes. Prompt and
  // output vectors are kept apart, and each is lent to a chain it holds
  // already (SpareVectors), so a steady state stops allocating.
  void GiveBack(std::vector<uint64_t>* prompt, std::vector<uint64_t>* output);
  // Gives each of the two that has no storage of its own and will hold
  // hashes room for what Hash(segments, output) puts there: a kept vector
  // large enough if there is one, else new storage.
  void Lend(std::span<const PromptSegment> segments, const PromptSegment& output,
            std::vector<uint64_t>* prompt, std::vector<uint64_t>* output_out);

 private:
  // Segments completing fewer blocks are hashed directly; longer ones are
  // hashed directly and not kept.
  static constexpr uint32_t kMinBlocks = 8;
  static constexpr uint32_t kMaxBlocks = 256;
  static constexpr uint32_t kSlots = 1024;
  static constexpr uint32_t kSeenSlots = 4096;

  struct Slot {
    BlockHasher::State before, after;
    PromptSegment segment;
    bool used = false;
    std::vector<uint64_t> hashes;  // capacity kMaxBlocks once used
    // Whether it keeps `of`'s hashes after `start`.
    bool Holds(const BlockHasher::State& start, const PromptSegment& of) const;
  };

  void Append(BlockHasher* hasher, const PromptSegment& segment, std::vector<uint64_t>* out);
  // Whether the segment's length after `before` is one the memory keeps.
  bool Memorable(const BlockHasher::State& before, const PromptSegment& segment) const;
  // The segment's key in the tables (made on first use).
  uint64_t Key(const BlockHasher::State& before, const PromptSegment& segment);
  // Whether Append would take the segment from the memory or keep it there
  // (it was seen before). A segment seen for the first time is marked seen,
  // as Append marks it.
  bool Repeats(const BlockHasher::State& before, const PromptSegment& segment);

  uint32_t block_size_;
  std::vector<Slot> slots_;
  std::vector<uint64_t> seen_;  // keys of segments seen once, direct-mapped
  // Vectors given back, cleared, with storage, by the power of two their
  // capacity reaches (Reserve allocates powers of two). One is lent from the
  // class of the next power of two of what it is lent for, the last given
  // back first (its memory the warmest), or new storage is reserved if that
  // class keeps none. Lent in turn instead, every vector grew to the longest chain of
  // the run (docs/PERFORMANCE.md, "Hash vectors lent by size").
  class SpareVectors {
   public:
    void Keep(std::vector<uint64_t>* v);
    // If v has no storage and `need` > 0: a kept vector, else new storage.
    void Take(std::vector<uint64_t>* v, uint64_t need);

   private:
    std::vector<std::vector<std::vector<uint64_t>>> classes_;  // by floor(log2(capacity))
  };
  SpareVectors spare_prompts_, spare_outputs_;
};

uint32_t TotalTokens(std::span<const PromptSegment> segments);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROMPT_BLOCKS_H_
