// The structure of the routers' prefix indexes (DESIGN.md, "KV memory": they
// reuse the caches' structure): one compressed radix tree of block runs
// (models/block_run_tree.h) shared by all replicas, whose nodes carry an entry
// for each replica that holds some of the node's blocks, as SGLang's router
// tree carries its tenants (sgl-router tree.rs). An entry says which blocks of
// the node the replica holds, a range [lo, hi), and when it last touched them;
// each replica's entries are also on a list of its own, in an order its index
// chooses (least recent first, for an LRU). Asking what every replica holds of
// a prompt walks the prompt's few nodes once and reads their entries, instead
// of asking each replica about each block.
//
// Entries never cover part of a node with different times: an index splits a
// node (SplitNode, which splits its entries) wherever a touch would end
// inside it. Nodes no entry and no child refers to are removed.
//
// A path inserted from a request's prompt (InsertPath of RequestHashes) is
// read only as far as the tree holds it, and its new leaf, if long
// (PromptChain::DeferLeafAt), holds only its first block and the prompt's
// segments: the prompt's own new tokens are hashed when a later prompt
// reaches the leaf (sharing its prefix up to there), as in Preble's tree
// (preble_tree.h). Such a leaf's lengths are known throughout; read them, and
// match runs, through length() and MatchRun().
#ifndef KVROUTE_POLICIES_REPLICA_RUN_INDEX_H_
#define KVROUTE_POLICIES_REPLICA_RUN_INDEX_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/block_run_tree.h"
#include "models/hash_index.h"
#include "models/prompt_blocks.h"
#include "models/request_hashes.h"
#include "sim/core/time.h"

namespace kvroute::policies {

class ReplicaRunIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Entry {
    uint32_t node = kNone;
    uint32_t replica = 0;
    uint32_t lo = 0, hi = 0;                        // the node's blocks [lo, hi) are held
    sim::Time time = 0;                             // of the last touch
    uint32_t node_prev = kNone, node_next = kNone;  // the node's entries
    uint32_t list_prev = kNone, list_next = kNone;  // the replica's list
  };

  explicit ReplicaRunIndex(uint32_t replicas);

  // The tree, for an index that never inserts from requests (whose leaves
  // all hold their blocks).
  const models::BlockRunTree& tree() const { return tree_; }
  uint32_t replicas() const { return static_cast<uint32_t>(lists_.size()); }

  // The node's blocks, hashed or not.
  uint32_t length(uint32_t node) const { return tree_.length(node) + unhashed(node); }
  // models::BlockRunTree::MatchRun, a leaf's blocks hashed first if need be
  // (logically const: they are a pure function of the segments it keeps).
  uint32_t MatchRun(uint32_t node, models::BlockChain chain, uint32_t pos, uint32_t end) const;

  // Adds `chain` to the tree, splitting nodes where it leaves or ends inside
  // them, and returns the nodes that now make up its path, in chain order.
  // Valid until the next call.
  std::span<const uint32_t> InsertPath(std::span<const uint64_t> chain);
  // The same for a request's prompt, read only as far as the tree holds it
  // when its hashes can be computed again (its new leaf keeps its segments).
  std::span<const uint32_t> InsertPath(const models::RequestHashes& hashes);

  // Cuts `node` after `keep` blocks (models::BlockRunTree::Split) and each of
  // its entries with it; the part of an entry nearer the root goes just
  // before it on its replica's list. Returns the new node (the first part).
  uint32_t SplitNode(uint32_t node, uint32_t keep);

  // The entry of `replica` on `node`, or kNone.
  uint32_t Find(uint32_t node, uint32_t replica) const { return index_.Find(Key(node, replica)); }
  // The node's entries: the first, and the one after `entry`; kNone ends.
  uint32_t FirstOn(uint32_t node) const {
    return node < first_on_.size() ? first_on_[node] : kNone;
  }
  const Entry& entry(uint32_t e) const { return entries_[e]; }
  Entry& entry(uint32_t e) { return entries_[e]; }

  // A new entry at the tail of its replica's list. REQUIRES: none for this
  // (node, replica) yet, lo < hi <= length(node).
  uint32_t Add(uint32_t node, uint32_t replica, uint32_t lo, uint32_t hi, sim::Time time);
  // Removes an entry, and the nodes left with no entry and no child.
  void Remove(uint32_t e);
  // Moves an entry to the tail of its replica's list.
  void MoveToTail(uint32_t e);
  uint32_t ListHead(uint32_t replica) const { return lists_[replica].head; }

 private:
  struct List {
    uint32_t head = kNone, tail = kNone;
  };
  static uint64_t Key(uint32_t node, uint32_t replica) {
    return (uint64_t{node} << 32 | replica) + 1;
  }
  // How to hash a leaf's blocks: its prompt's segments and block size.
  struct Recipe {
    std::vector<models::PromptSegment> segments;
    uint32_t block_size = 0;
  };

  // The leaf's blocks not hashed yet (0 for every other node).
  uint32_t unhashed(uint32_t node) const { return node < unhashed_.size() ? unhashed_[node] : 0; }
  void Unlink(uint32_t e);
  void LinkBefore(uint32_t e, uint32_t before);  // kNone: at the tail
  void Prune(uint32_t node);
  template <typename Chain>
  std::span<const uint32_t> InsertChain(const Chain& chain);
  // A new leaf holding the chain's first block at `pos` and the prompt's
  // segments for the rest. REQUIRES: size > pos + 1.
  uint32_t AddUnhashedLeaf(uint32_t parent, const models::RequestHashes& hashes,
                           std::span<const uint64_t> known, uint32_t pos, uint32_t size);
  // Hashes the leaf's unhashed blocks into the tree.
  void HashLeaf(uint32_t node) const;
  void DropRecipe(uint32_t node) const;

  // Mutable: a leaf's blocks are hashed when first read (MatchRun).
  mutable models::BlockRunTree tree_;
  // Per node id: blocks after those in tree_, not hashed yet (a leaf's), and
  // the recipe they are hashed from.
  mutable std::vector<uint32_t> unhashed_;
  mutable std::vector<uint32_t> recipe_of_;
  std::vector<Recipe> recipes_;  // freed ones are kept, with their storage
  mutable std::vector<uint32_t> free_recipes_;
  mutable std::vector<uint64_t> scratch_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_entries_;
  std::vector<uint32_t> first_on_;  // per node
  std::vector<List> lists_;         // per replica
  models::HashIndex index_;         // (node, replica) -> entry
  std::vector<uint32_t> path_;
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_REPLICA_RUN_INDEX_H_
