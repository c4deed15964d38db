// Which block hashes start a node in any of a set of BlockRunTrees, as a
// counting filter: a small counter per slot, a hash's slot its top bits. A
// zero counter proves that no tree has a node starting with any hash of the
// slot, so a walk of many trees in lockstep (KvCache::MatchPrefixMany) skips
// their hash indexes there; a non-zero one may be another hash's, and the
// walk looks as before. It answers only "certainly not": never wrong, at
// most not useful.
//
// Why: a prompt's walk over every replica's cache ends, in each, where the
// prompt's own new tokens start, and there every replica's index is asked
// about a hash none holds. The filter answers that once for all of them.
//
// The trees keep it current (BlockRunTree::AddChild, Split, Remove, Clear).
// It keeps at least kSlotsPerNode slots per node counted, so about one
// question in that many about an absent hash is answered "maybe"; when the
// nodes outgrow it, it doubles and counts the trees' nodes again (O(1) per
// node added, amortized). Counters stop at their largest value and are then
// never decremented: "maybe" for good, never a false "no".
#ifndef KVROUTE_MODELS_FIRST_BLOCK_FILTER_H_
#define KVROUTE_MODELS_FIRST_BLOCK_FILTER_H_

#include <cstdint>
#include <vector>

namespace kvroute::models {

class BlockRunTree;

class FirstBlockFilter {
 public:
  FirstBlockFilter();
  ~FirstBlockFilter();  // the trees stop counting into it
  FirstBlockFilter(const FirstBlockFilter&) = delete;
  FirstBlockFilter& operator=(const FirstBlockFilter&) = delete;

  // Counts the tree's nodes, now and as they change, until this filter is
  // destroyed. REQUIRES: the tree outlives the filter (whose destructor
  // detaches it) and counts into no other filter.
  void Attach(BlockRunTree* tree);

  // False only if no attached tree has a node whose run starts with `first`.
  bool MayStart(uint64_t first) const { return counts_[Slot(first)] != 0; }

  // For the trees: a node starting with `first` was added or removed.
  void Add(uint64_t first);
  void Remove(uint64_t first);

  size_t slots() const { return counts_.size(); }
  size_t Slot(uint64_t first) const { return static_cast<size_t>(first >> shift_); }

 private:
  static constexpr uint16_t kSaturated = UINT16_MAX;
  static constexpr uint64_t kSlotsPerNode = 16;

  void Count(uint64_t first);
  // Counts every node of the tree.
  void CountNodes(const BlockRunTree& tree);
  // Doubles the slots until kSlotsPerNode per node, and counts again.
  void Grow();

  std::vector<uint16_t> counts_;
  uint32_t shift_;      // 64 - log2(slots)
  uint64_t nodes_ = 0;  // counted, in all trees
  std::vector<BlockRunTree*> trees_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_FIRST_BLOCK_FILTER_H_
