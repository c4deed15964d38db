#include "policies/preble_tree.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "policies/prompt_chain.h"

// Invariants: nodes are never removed, so runs_ numbers them in creation
// order as nodes_ does, the root 0. An allocation or reference list, once
// spilled, is the node's own vector and the fields held in the node are
// unused (gpus still counts the allocation); unspilled, gpus <= 1. A node
// with unhashed blocks is a leaf whose run in runs_ is its first block, and
// has a recipe.

namespace kvroute::policies {

PrebleTree::PrebleTree() {
  nodes_.emplace_back();
  large_.push_back(0);  // the root: no blocks
}

uint32_t PrebleTree::NewNode(uint32_t parent, models::BlockChain chain, uint32_t from) {
  const uint32_t id = runs_.AddChild(parent, chain, from, chain.size());
  nodes_.emplace_back();
  nodes_[id].written = ++clock_;  // empty, and unaffected by earlier moves above it
  large_.emplace_back();
  SetLarge(id);
  return id;
}

// The allocation as last written and the reference counts, with their time.
void PrebleTree::CopyState(uint32_t from, uint32_t to) {
  Node& a = nodes_[from];
  Node& b = nodes_[to];
  b.written = a.written;
  b.gpus = a.gpus;
  b.gpu = a.gpu;
  if (a.allocation_spill != kNone) {
    std::vector<uint32_t> copy = allocations_[a.allocation_spill];
    b.allocation_spill = static_cast<uint32_t>(allocations_.size());
    allocations_.push_back(std::move(copy));
  }
  b.ref_gpu = a.ref_gpu;
  b.ref_count = a.ref_count;
  if (a.refs_spill != kNone) {
    Refs copy = refs_[a.refs_spill];
    b.refs_spill = static_cast<uint32_t>(refs_.size());
    refs_.push_back(std::move(copy));
  }
}

// LPRadixCache._split_node: the new parent keeps the first `keep` blocks
// and copies the child's allocation and reference counts.
uint32_t PrebleTree::SplitNode(uint32_t child, uint32_t keep) {
  const uint32_t id = runs_.Split(child, keep);
  nodes_.emplace_back();
  CopyState(child, id);  // with its time, so it resolves as the child does
  large_.emplace_back();
  SetLarge(id);
  SetLarge(child);
  return id;
}

template <typename Chain>
uint32_t PrebleTree::InsertChain(const Chain& chain, std::vector<Split>* splits) {
  const uint32_t size = chain.size();
  uint32_t node = kRoot;
  uint32_t pos = 0;
  while (pos < size) {
    std::span<const uint64_t> known = chain.Prefix(pos + 1);
    const uint32_t child = runs_.Child(known[pos]);
    if (child == models::BlockRunTree::kNone) {
      if constexpr (!Chain::kLazy) {
        return NewNode(node, models::BlockChain(known), pos);
      } else if (!chain.DeferLeafAt(pos)) {
        return NewNode(node, models::BlockChain(chain.Prefix(size)), pos);
      } else {
        // Only the leaf's first block is hashed: a later prompt that reaches
        // it has the same prefix, and hashes the rest then.
        const uint32_t leaf = NewNode(node, models::BlockChain(known.first(pos + 1)), pos);
        const std::span<const models::PromptSegment> segments = chain.hashes.segments();
        nodes_[leaf].unhashed = size - pos - 1;
        SetLarge(leaf);
        recipe_of_.resize(nodes_.size());
        recipe_of_[leaf] = static_cast<uint32_t>(recipes_.size());
        recipes_.push_back({static_cast<uint32_t>(recipe_segments_.size()),
                            static_cast<uint32_t>(segments.size()), chain.hashes.block_size()});
        recipe_segments_.insert(recipe_segments_.end(), segments.begin(), segments.end());
        return leaf;
      }
    }
    if (nodes_[child].unhashed > 0) HashLeaf(child);
    const uint32_t end = std::min(size, pos + blocks(child));
    known = chain.Prefix(end);
    const uint32_t matched = runs_.MatchRun(child, models::BlockChain(known), pos, end);
    pos += matched;
    if (matched == blocks(child)) {
      node = child;
      continue;
    }
    node = SplitNode(child, matched);
    splits->push_back({child, node});
  }
  return node;
}

uint32_t PrebleTree::Insert(std::span<const uint64_t> chain, std::vector<Split>* splits) {
  return InsertChain(WholeChain{chain}, splits);
}

uint32_t PrebleTree::Insert(const models::RequestHashes& hashes, std::vector<Split>* splits) {
  if (hashes.segments().empty()) return Insert(hashes.prompt(), splits);  // written directly
  return InsertChain(PromptChain{hashes}, splits);
}

void PrebleTree::HashLeaf(uint32_t node) {
  const Recipe& recipe = recipes_[recipe_of_[node]];
  HashUnhashedLeaf(runs_, node, nodes_[node].unhashed,
                   {recipe_segments_.data() + recipe.begin, recipe.count}, recipe.block_size,
                   &scratch_);
  nodes_[node].unhashed = 0;
}

uint32_t PrebleTree::Find(std::span<const uint64_t> chain) {
  const models::BlockChain run_chain(chain);
  uint32_t node = kRoot;
  uint32_t pos = 0;
  while (pos < run_chain.size()) {
    const uint32_t child = runs_.Child(chain[pos]);
    if (child == models::BlockRunTree::kNone) return kNone;
    if (nodes_[child].unhashed > 0) HashLeaf(child);
    const uint32_t matched = runs_.MatchRun(child, run_chain, pos, run_chain.size());
    if (matched != blocks(child)) return kNone;
    pos += matched;
    node = child;
  }
  return node;
}

std::span<const uint32_t> PrebleTree::written_allocation(uint32_t node) const {
  const Node& n = nodes_[node];
  if (n.allocation_spill != kNone) return allocations_[n.allocation_spill];
  return {&n.gpu, n.gpus};
}

std::vector<uint32_t>& PrebleTree::SpilledAllocation(uint32_t node) {
  Node& n = nodes_[node];
  if (n.allocation_spill == kNone) {
    n.allocation_spill = static_cast<uint32_t>(allocations_.size());
    allocations_.emplace_back(&n.gpu, &n.gpu + n.gpus);
  }
  return allocations_[n.allocation_spill];
}

// The node's own allocation, unless an ancestor's subtree moved after it
// was written: then the latest such move's GPU.
std::span<const uint32_t> PrebleTree::allocation(uint32_t node) const {
  const Node& self = nodes_[node];
  uint64_t latest = self.written;
  const uint32_t* gpu = nullptr;
  for (uint32_t a = parent(node); a != kNone; a = parent(a)) {
    if (nodes_[a].moved > latest) {
      latest = nodes_[a].moved;
      gpu = &nodes_[a].moved_to;
    }
  }
  if (gpu != nullptr) return {gpu, 1};
  return written_allocation(node);
}

bool PrebleTree::allocated(uint32_t node, uint32_t gpu) const {
  std::span<const uint32_t> a = allocation(node);
  return std::binary_search(a.begin(), a.end(), gpu);
}

bool PrebleTree::Allocate(uint32_t node, uint32_t gpu) {
  std::span<const uint32_t> current = allocation(node);
  if (std::binary_search(current.begin(), current.end(), gpu)) return false;
  Node& self = nodes_[node];
  if (current.empty() && self.allocation_spill == kNone) {
    self.gpus = 1;
    self.gpu = gpu;
  } else {
    // `current` is the node's own GPUs or a moved ancestor's one, neither of
    // which spilling moves.
    std::vector<uint32_t>& gpus = SpilledAllocation(node);
    if (current.data() != gpus.data()) gpus.assign(current.begin(), current.end());
    gpus.insert(std::lower_bound(gpus.begin(), gpus.end(), gpu), gpu);
    self.gpus = static_cast<uint32_t>(gpus.size());
  }
  self.written = ++clock_;
  return true;
}

void PrebleTree::SetAllocation(uint32_t node, std::span<const uint32_t> gpus) {
  Node& self = nodes_[node];
  if (self.allocation_spill == kNone && gpus.size() <= 1) {
    self.gpus = static_cast<uint32_t>(gpus.size());
    if (!gpus.empty()) self.gpu = gpus[0];
  } else {
    SpilledAllocation(node).assign(gpus.begin(), gpus.end());
    self.gpus = static_cast<uint32_t>(gpus.size());
  }
  self.written = ++clock_;
}

void PrebleTree::MoveSubtree(uint32_t node, uint32_t gpu) {
  const uint32_t only[] = {gpu};
  SetAllocation(node, only);
  nodes_[node].moved = nodes_[node].written;
  nodes_[node].moved_to = gpu;
}

uint32_t PrebleTree::refs(uint32_t node, uint32_t gpu) const {
  const Node& n = nodes_[node];
  if (n.refs_spill == kNone) return n.ref_count > 0 && n.ref_gpu == gpu ? n.ref_count : 0;
  for (const auto& [g, count] : refs_[n.refs_spill]) {
    if (g == gpu) return count;
  }
  return 0;
}

PrebleTree::SoleRefs PrebleTree::sole_refs(uint32_t node) const {
  const Node& n = nodes_[node];
  if (n.refs_spill == kNone) return {n.ref_gpu, n.ref_count};
  const Refs& refs = refs_[n.refs_spill];
  if (refs.size() > 1) return {0, kSeveral};
  return refs.empty() ? SoleRefs{} : SoleRefs{refs[0].first, refs[0].second};
}

// A release may find no reference of this replica on a node of the path
// (the path's references were counted under another replica or already
// released): counts never go below zero, so there is nothing to take back.
void PrebleTree::AddRefs(uint32_t node, uint32_t gpu, int delta) {
  Node& n = nodes_[node];
  if (n.refs_spill == kNone) {
    if (n.ref_count > 0 && n.ref_gpu == gpu) {
      assert(static_cast<int64_t>(n.ref_count) + delta >= 0);
      n.ref_count = static_cast<uint32_t>(static_cast<int64_t>(n.ref_count) + delta);
      return;
    }
    if (delta <= 0) return;
    if (n.ref_count == 0) {
      n.ref_gpu = gpu;
      n.ref_count = static_cast<uint32_t>(delta);
      return;
    }
    n.refs_spill = static_cast<uint32_t>(refs_.size());
    refs_.push_back({{n.ref_gpu, n.ref_count}});
    n.ref_count = 0;
  }
  Refs& refs = refs_[n.refs_spill];
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].first != gpu) continue;
    assert(static_cast<int64_t>(refs[i].second) + delta >= 0);
    refs[i].second = static_cast<uint32_t>(static_cast<int64_t>(refs[i].second) + delta);
    if (refs[i].second == 0) {
      refs[i] = refs.back();
      refs.pop_back();
    }
    return;
  }
  if (delta > 0) refs.emplace_back(gpu, static_cast<uint32_t>(delta));
}

}  // namespace kvroute::policies
