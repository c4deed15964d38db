// Preble's global prefix tree (WukLab/preble preble/global_lru_cache.py,
// LPRadixCache; policies.md §5), over chained block hashes instead of token
// ids: a node holds a run of blocks (a radix edge), split where a new prompt
// diverges inside it, and nodes are never removed — Preble's tree only grows.
// Each node carries Preble's `gpu_allocations[node]` and `ref_counter[gpu]`
// (requests in flight on a GPU whose prompt passes through the node). A move
// reallocates a whole subtree, which in Preble's tree holds every prompt ever
// routed under the node; the move is recorded on the node and its
// descendants read it lazily, so a move costs O(1) instead of O(subtree).
//
// The runs are models::BlockRunTree's (the structure of the caches and the
// other routers' indexes): a chained hash fixes its whole prefix, so the
// block that starts a node identifies it and one map from first blocks to
// nodes replaces the per-node child maps, and a split costs O(1). Token counts
// are whole blocks; a prompt's partial last block is not cacheable and is not
// in the tree.
//
// A prompt inserted from its request's segments leaves a leaf of which, if
// long (PromptChain::DeferLeafAt), only the first block is hashed: the tree
// keeps every prompt ever routed, and a prompt's own new tokens are rarely
// reached again. A later prompt that reaches the leaf shares its prefix up
// to there, and the leaf's other blocks are hashed then, from the segments
// it keeps. Its lengths are known throughout, so the tree reads the same as
// one of whole chains.
#ifndef KVROUTE_POLICIES_PREBLE_TREE_H_
#define KVROUTE_POLICIES_PREBLE_TREE_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/block_run_tree.h"
#include "models/prompt_blocks.h"
#include "models/request_hashes.h"

namespace kvroute::policies {

class PrebleTree {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = UINT32_MAX;

  PrebleTree();

  // A split of `child` made room for `parent`, the new node holding child's
  // first blocks; parent starts with child's allocation and reference counts.
  struct Split {
    uint32_t child;
    uint32_t parent;
  };

  // LPRadixCache.insert: the node whose path from the root is exactly `chain`,
  // created (and existing nodes split) as needed; the root for an empty chain.
  // Splits are appended to `splits`.
  uint32_t Insert(std::span<const uint64_t> chain, std::vector<Split>* splits);
  // The same for a request's prompt, read only as far as the tree holds it
  // (RequestHashes::PromptPrefix) when its hashes can be computed again: the
  // new leaf then keeps the prompt's segments and its first block, and the
  // rest of its hashes are computed when a later prompt reaches into it. The
  // tree is the one Insert(hashes.prompt()) makes.
  uint32_t Insert(const models::RequestHashes& hashes, std::vector<Split>* splits);

  // LPRadixCache.find_node: the node whose path is exactly `chain`, or kNone.
  // Insert's result stays that node: a split keeps the id of the node where
  // a chain ends (the policy keeps each request's leaf rather than finding it
  // again at completion). Not const: a leaf it reaches into is hashed.
  uint32_t Find(std::span<const uint64_t> chain);

  uint32_t parent(uint32_t node) const { return runs_.parent(node); }
  // Preble's num_tokens, context_length and context_so_far, in blocks.
  uint32_t blocks(uint32_t node) const { return runs_.length(node) + nodes_[node].unhashed; }
  uint32_t context_blocks(uint32_t node) const {
    return runs_.end_depth(node) + nodes_[node].unhashed;
  }
  uint32_t context_so_far(uint32_t node) const { return runs_.start_depth(node); }
  // is_large_node: the node holds more tokens than all its ancestors together.
  // Kept per node (rebalancing asks it of every busy node on every replica
  // after each request): set when a node is made or split, the only times
  // its blocks or its depth change.
  bool large(uint32_t node) const { return large_[node] != 0; }
  uint32_t size() const { return static_cast<uint32_t>(nodes_.size()); }

  // The GPUs allocated to a node, ascending; valid until the tree changes.
  std::span<const uint32_t> allocation(uint32_t node) const;
  bool allocated(uint32_t node, uint32_t gpu) const;
  // Returns false if `gpu` was already allocated.
  bool Allocate(uint32_t node, uint32_t gpu);
  void SetAllocation(uint32_t node, std::span<const uint32_t> gpus);
  // update_children after a move: the node and every descendant are
  // allocated to `gpu` alone. O(1): descendants read it from the node until
  // their own allocation is written again.
  void MoveSubtree(uint32_t node, uint32_t gpu);

  uint32_t refs(uint32_t node, uint32_t gpu) const;
  // The node's reference counts when at most one GPU holds any: that GPU
  // and its count (count 0 when none does); count kSeveral otherwise.
  static constexpr uint32_t kSeveral = UINT32_MAX;
  struct SoleRefs {
    uint32_t gpu = 0;
    uint32_t count = 0;
  };
  SoleRefs sole_refs(uint32_t node) const;
  // REQUIRES: the count stays non-negative.
  void AddRefs(uint32_t node, uint32_t gpu, int delta);

 private:
  // A node's GPUs and reference counts are one entry each for almost every
  // node (a prompt's own leaf), held in the node; a node that ever needs more
  // (a shared prefix) spills them to a vector of its own in allocations_ or
  // refs_, which it keeps. So routing allocates only for shared prefixes.
  struct Node {
    uint64_t written = 0;  // when the allocation was last written
    uint64_t moved = 0;    // when MoveSubtree last gave the subtree to `moved_to`
    uint32_t moved_to = 0;
    uint32_t gpus = 0;                    // the allocation's size, as last written
    uint32_t gpu = 0;                     // its only GPU when gpus == 1 and not spilled
    uint32_t allocation_spill = kNone;    // index in allocations_, or kNone
    uint32_t ref_gpu = 0, ref_count = 0;  // the one (gpu, count > 0) if any, when not spilled
    uint32_t refs_spill = kNone;          // index in refs_, or kNone
    // A leaf's blocks after those in runs_, not hashed yet: its prompt is
    // recipes_[recipe_of_[node]].
    uint32_t unhashed = 0;
  };
  // How to hash a leaf's blocks: its prompt's segments (in
  // recipe_segments_) and block size. One arena holds every recipe's
  // segments, as no node is ever removed (the router index, whose leaves
  // are, reuses its recipes instead: replica_run_index.h).
  struct Recipe {
    uint32_t begin, count;
    uint32_t block_size;
  };
  using Refs = std::vector<std::pair<uint32_t, uint32_t>>;  // (gpu, count > 0)

  std::span<const uint32_t> written_allocation(uint32_t node) const;
  // Makes the node's allocation spilled (keeping its GPUs) and returns it.
  std::vector<uint32_t>& SpilledAllocation(uint32_t node);
  void CopyState(uint32_t from, uint32_t to);

  uint32_t NewNode(uint32_t parent, models::BlockChain chain, uint32_t from);
  uint32_t SplitNode(uint32_t child, uint32_t keep);
  // A chain's walk down the tree, reading `chain` as far as it goes.
  template <typename Chain>
  uint32_t InsertChain(const Chain& chain, std::vector<Split>* splits);
  // Hashes the node's unhashed blocks into runs_.
  void HashLeaf(uint32_t node);
  void SetLarge(uint32_t node) { large_[node] = blocks(node) > context_so_far(node); }

  models::BlockRunTree runs_;  // the tree's shape and runs; ids index nodes_
  std::vector<Node> nodes_;
  std::vector<uint8_t> large_;  // per node, large(): a byte, so busy nodes' share cache lines
  std::vector<std::vector<uint32_t>> allocations_;  // spilled allocations, ascending
  std::vector<Refs> refs_;                          // spilled reference counts
  uint64_t clock_ = 0;                              // orders allocation writes and moves
  std::vector<Recipe> recipes_;
  std::vector<uint32_t> recipe_of_;  // per node with unhashed blocks, else unused
  std::vector<models::PromptSegment> recipe_segments_;
  std::vector<uint64_t> scratch_;  // a leaf's prompt, hashed
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PREBLE_TREE_H_
