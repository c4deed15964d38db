// A prompt's chained block hashes as the routers' prefix trees read them
// (preble_tree.h, replica_run_index.h): given whole, or a request's, hashed
// only as far as they are read (RequestHashes::PromptPrefix). A tree walks a
// chain with size() and Prefix(n), which holds at least the first n hashes
// (all of them for a whole chain); where it adds a leaf, a lazy chain's leaf
// keeps the prompt's segments instead of its hashes.
#ifndef KVROUTE_POLICIES_PROMPT_CHAIN_H_
#define KVROUTE_POLICIES_PROMPT_CHAIN_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/block_run_tree.h"
#include "models/prompt_blocks.h"
#include "models/request_hashes.h"

namespace kvroute::policies {

struct WholeChain {
  static constexpr bool kLazy = false;
  std::span<const uint64_t> chain;
  uint32_t size() const { return static_cast<uint32_t>(chain.size()); }
  std::span<const uint64_t> Prefix(uint32_t) const { return chain; }
};

// REQUIRES: the hashes can be computed again (hashes.segments() not empty).
struct PromptChain {
  static constexpr bool kLazy = true;
  const models::RequestHashes& hashes;
  uint32_t size() const { return hashes.prompt_blocks(); }
  std::span<const uint64_t> Prefix(uint32_t blocks) const { return hashes.PromptPrefix(blocks); }
  // Whether a new leaf from block `pos` is left unhashed: only when enough of
  // it would be for the saving to outweigh keeping the segments (the same
  // measure as where a prompt's hashing is cut, prompt_blocks.h).
  bool DeferLeafAt(uint32_t pos) const {
    return size() - pos > models::SequenceHasher::kMinCutBlocks;
  }
};

// Hashes a leaf's `unhashed` blocks after those `tree` holds, from its
// prompt's segments and block size, and appends them (a later prompt has
// reached the leaf). `scratch` holds the prompt's hashes after.
void HashUnhashedLeaf(models::BlockRunTree& tree, uint32_t leaf, uint32_t unhashed,
                      std::span<const models::PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* scratch);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PROMPT_CHAIN_H_
