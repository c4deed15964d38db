// A compressed radix tree over chained block hashes (DESIGN.md, "Performance
// notes"): each node holds a run of blocks, so a prompt of a few segments is a
// path of a few nodes however many blocks it has. The replicas' prefix caches
// (kv_cache.h) and the routers' prefix indexes (policies/) are built on it;
// they keep their own state per node in arrays indexed by node id.
//
// A chained hash fixes its whole prefix (DESIGN.md, "Requests"), so
//  - the first block of a node identifies it: one map from first blocks to
//    nodes finds a node's child that continues a chain, and
//  - a run matches a chain up to its last block iff that last block's hash is
//    equal, so a node is matched in O(1), and where a chain leaves a node the
//    point is found by binary search, in O(log run).
// REQUIRES of every chain given: hashes are chained (two chains with an equal
// hash at position j are equal up to j), non-zero, and distinct within a chain;
// for speed, not correctness, their bits uniform (they index a BlockHashIndex).
//
// Runs live in one arena of hashes, not in per-node vectors: a node is a range
// of it, a split cuts the range in two, appending grows it in place when it
// can and moves it otherwise, and the arena is compacted when its end is
// reached. Nothing is allocated once the arena, the node table and the map
// have grown to the tree's working size.
#ifndef KVROUTE_MODELS_BLOCK_RUN_TREE_H_
#define KVROUTE_MODELS_BLOCK_RUN_TREE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/first_block_filter.h"
#include "models/hash_index.h"
#include "sim/core/growable_words.h"

namespace kvroute::models {

// The chained block hashes a request can cache, seen as one sequence: its
// prompt's full blocks, then the full blocks its output completes (empty when
// generated tokens are not cached).
class BlockChain {
 public:
  BlockChain() = default;
  BlockChain(std::span<const uint64_t> prompt, std::span<const uint64_t> output = {})
      : prompt_(prompt), output_(output) {}
  BlockChain(const std::vector<uint64_t>& prompt) : prompt_(prompt) {}  // NOLINT: a prompt only

  uint32_t size() const { return static_cast<uint32_t>(prompt_.size() + output_.size()); }
  uint64_t operator[](uint32_t j) const {
    return j < prompt_.size() ? prompt_[j] : output_[j - prompt_.size()];
  }
  // Copies blocks [from, to) to `out`.
  void CopyTo(uint32_t from, uint32_t to, uint64_t* out) const;

 private:
  std::span<const uint64_t> prompt_, output_;
};

class BlockRunTree {
 public:
  static constexpr uint32_t kRoot = 0;  // holds no blocks; always present
  static constexpr uint32_t kNone = UINT32_MAX;

  BlockRunTree();

  // Structure. Node ids are below node_slots(); a removed node's id is reused.
  uint32_t parent(uint32_t node) const { return nodes_[node].parent; }
  uint32_t length(uint32_t node) const { return nodes_[node].length; }
  // Blocks from the root to the node's last block, inclusive.
  uint32_t end_depth(uint32_t node) const { return nodes_[node].end_depth; }
  uint32_t start_depth(uint32_t node) const { return end_depth(node) - length(node); }
  uint32_t children(uint32_t node) const { return nodes_[node].children; }
  // Blocks that can be appended to the node without moving its run.
  uint32_t spare(uint32_t node) const { return nodes_[node].capacity - nodes_[node].length; }
  uint64_t hash(uint32_t node, uint32_t offset) const { return runs_[nodes_[node].begin + offset]; }
  uint64_t last(uint32_t node) const { return hash(node, length(node) - 1); }
  // The node's blocks, valid until the tree changes.
  std::span<const uint64_t> run(uint32_t node) const {
    return {runs_.data() + nodes_[node].begin, nodes_[node].length};
  }
  uint32_t node_slots() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t size() const { return live_; }  // nodes other than the root
  // Whether a node id below node_slots() is a node other than the root, and
  // the first block of such a node's run.
  bool live(uint32_t node) const { return node != kRoot && nodes_[node].parent != kNone; }
  uint64_t first(uint32_t node) const { return nodes_[node].first; }

  // The filter told of every node added or removed from now on (nullptr:
  // none); FirstBlockFilter::Attach sets it.
  void set_first_block_filter(FirstBlockFilter* filter) { filter_ = filter; }
  const FirstBlockFilter* first_block_filter() const { return filter_; }

  // The node whose run starts with block `first` (its parent is the node
  // ending with the block before it), or kNone.
  uint32_t Child(uint64_t first) const {
    const uint32_t node = index_.Find(first);
    return node == BlockHashIndex::kAbsent ? kNone : node;
  }

  // Start loading what Child(first) and then MatchRun(node, ...) read, so
  // that walks of many trees in lockstep overlap their memory reads.
  void PrefetchChild(uint64_t first) const { index_.Prefetch(first); }
  void PrefetchNode(uint32_t node) const { __builtin_prefetch(&nodes_[node]); }
  void PrefetchLast(uint32_t node) const {
    __builtin_prefetch(&runs_[nodes_[node].begin + nodes_[node].length - 1]);
  }

  // Leading blocks of chain[pos, end) equal to the node's run, at most its
  // length. REQUIRES: chain[pos] is the node's first block.
  uint32_t MatchRun(uint32_t node, BlockChain chain, uint32_t pos, uint32_t end) const;

  // The deepest node holding block `depth` - 1 (blocks counted from 1) on the
  // path from the root to `node`: `node` itself or an ancestor.
  // REQUIRES: 0 < depth <= end_depth(node).
  uint32_t AncestorAt(uint32_t node, uint32_t depth) const;

  // A new leaf below `parent` holding chain[from, to), with room to append
  // `reserve` more blocks without moving. REQUIRES: from < to, chain[from]
  // not in the tree, and `parent` ends with chain[from - 1] (the root if 0).
  uint32_t AddChild(uint32_t parent, BlockChain chain, uint32_t from, uint32_t to,
                    uint32_t reserve = 0);
  // Appends chain[from, to) to a leaf that ends with chain[from - 1].
  void Append(uint32_t leaf, BlockChain chain, uint32_t from, uint32_t to);
  // Cuts `node` after its first `keep` blocks: a new node takes them and
  // becomes `node`'s parent, `node` keeps the rest (and its id, children and
  // end). Returns the new node. REQUIRES: 0 < keep < length(node).
  uint32_t Split(uint32_t node, uint32_t keep);
  // Drops the last `blocks` blocks of a leaf. REQUIRES: 0 < blocks < length.
  void TruncateTail(uint32_t leaf, uint32_t blocks);
  // Removes a leaf other than the root.
  void Remove(uint32_t leaf);
  // Removes every node but the root.
  void Clear();

  // Checks the invariants stated in block_run_tree.cc; returns an empty
  // string or the first violation (for tests).
  std::string CheckInvariants() const;

 private:
  struct Node {
    uint64_t first = 0;       // the run's first block (its key in the index)
    uint32_t parent = kNone;  // kNone for the root and for free ids
    uint32_t begin = 0;       // the run is runs_[begin, begin + length)
    uint32_t length = 0;
    uint32_t capacity = 0;  // runs_[begin, begin + capacity) is this node's
    uint32_t end_depth = 0;
    uint32_t children = 0;
  };

  uint32_t NewNode();
  // Returns the start of `n` free words at the arena's end, compacting or
  // growing the arena first if they are not there.
  uint32_t Allocate(uint32_t n);
  void Compact(uint32_t need);
  void Reclaim();

  std::vector<Node> nodes_;
  std::vector<uint32_t> free_nodes_;
  uint32_t live_ = 0;
  sim::GrowableWords runs_;             // the arena
  uint32_t top_ = 0;                    // runs_[top_, size) is free
  BlockHashIndex index_;                // a node's first block -> the node
  FirstBlockFilter* filter_ = nullptr;  // told of nodes added and removed, if any
  std::vector<uint32_t> scratch_;       // compaction order
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_BLOCK_RUN_TREE_H_
