#include "policies/prompt_chain.h"

#include <cassert>

namespace kvroute::policies {

void HashUnhashedLeaf(models::BlockRunTree& tree, uint32_t leaf, uint32_t unhashed,
                      std::span<const models::PromptSegment> segments, uint32_t block_size,
                      std::vector<uint64_t>* scratch) {
  models::HashPromptBlocks(segments, block_size, scratch);
  const uint32_t from = tree.end_depth(leaf);
  const uint32_t to = from + unhashed;
  assert(scratch->size() >= to && (*scratch)[from - 1] == tree.last(leaf));
  tree.Append(leaf, models::BlockChain(*scratch), from, to);
}

}  // namespace kvroute::policies
