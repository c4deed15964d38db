#include "models/first_block_filter.h"

#include <cassert>

#include "models/block_run_tree.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kInitialLog2Slots = 12;

}  // namespace

FirstBlockFilter::FirstBlockFilter()
    : counts_(size_t{1} << kInitialLog2Slots, 0), shift_(64 - kInitialLog2Slots) {}

FirstBlockFilter::~FirstBlockFilter() {
  for (BlockRunTree* tree : trees_) tree->set_first_block_filter(nullptr);
}

void FirstBlockFilter::Attach(BlockRunTree* tree) {
  assert(tree->first_block_filter() == nullptr);
  trees_.push_back(tree);
  tree->set_first_block_filter(this);
  nodes_ += tree->size();
  if (nodes_ * kSlotsPerNode > counts_.size()) {
    Grow();
  } else {
    CountNodes(*tree);
  }
}

void FirstBlockFilter::CountNodes(const BlockRunTree& tree) {
  for (uint32_t node = 1; node < tree.node_slots(); ++node) {
    if (tree.live(node)) Count(tree.first(node));
  }
}

void FirstBlockFilter::Count(uint64_t first) {
  uint16_t& count = counts_[Slot(first)];
  if (count != kSaturated) ++count;
}

void FirstBlockFilter::Add(uint64_t first) {
  ++nodes_;
  if (nodes_ * kSlotsPerNode > counts_.size()) {
    Grow();  // counts every tree's nodes, this one's included
  } else {
    Count(first);
  }
}

void FirstBlockFilter::Remove(uint64_t first) {
  assert(nodes_ > 0);
  --nodes_;
  uint16_t& count = counts_[Slot(first)];
  assert(count > 0);
  if (count != kSaturated) --count;
}

void FirstBlockFilter::Grow() {
  size_t slots = counts_.size();
  while (nodes_ * kSlotsPerNode > slots) {
    slots *= 2;
    --shift_;
  }
  counts_.assign(slots, 0);
  for (const BlockRunTree* tree : trees_) CountNodes(*tree);
}

}  // namespace kvroute::models
