#include "policies/preble_tree.h"

#include <algorithm>
#include <cassert>

// Invariants: nodes are never removed, so runs_ numbers them in creation
// order as nodes_ does, the root 0.

namespace kvroute::policies {

PrebleTree::PrebleTree() { nodes_.emplace_back(); }

uint32_t PrebleTree::NewNode(uint32_t parent, models::BlockChain chain, uint32_t from) {
  const uint32_t id = runs_.AddChild(parent, chain, from, chain.size());
  nodes_.emplace_back();
  nodes_[id].written = ++clock_;  // empty, and unaffected by earlier moves above it
  nodes_[parent].children.push_back(id);
  return id;
}

// LPRadixCache._split_node: the new parent keeps the first `keep` blocks and
// copies the child's allocation and reference counts.
uint32_t PrebleTree::SplitNode(uint32_t child, uint32_t keep) {
  const uint32_t up = runs_.parent(child);
  const uint32_t id = runs_.Split(child, keep);
  nodes_.emplace_back();
  Node& node = nodes_[id];
  const Node& old = nodes_[child];
  node.children.push_back(child);
  node.allocation = old.allocation;  // with its time, so it resolves as the child does
  node.written = old.written;
  node.refs = old.refs;
  std::replace(nodes_[up].children.begin(), nodes_[up].children.end(), child, id);
  return id;
}

uint32_t PrebleTree::Insert(std::span<const uint64_t> chain, std::vector<Split>* splits) {
  const models::BlockChain run_chain(chain);
  uint32_t node = kRoot;
  uint32_t pos = 0;
  while (pos < run_chain.size()) {
    const uint32_t child = runs_.Child(chain[pos]);
    if (child == models::BlockRunTree::kNone) return NewNode(node, run_chain, pos);
    const uint32_t matched = runs_.MatchRun(child, run_chain, pos, run_chain.size());
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

uint32_t PrebleTree::Find(std::span<const uint64_t> chain) const {
  const models::BlockChain run_chain(chain);
  uint32_t node = kRoot;
  uint32_t pos = 0;
  while (pos < run_chain.size()) {
    const uint32_t child = runs_.Child(chain[pos]);
    if (child == models::BlockRunTree::kNone) return kNone;
    const uint32_t matched = runs_.MatchRun(child, run_chain, pos, run_chain.size());
    if (matched != blocks(child)) return kNone;
    pos += matched;
    node = child;
  }
  return node;
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
  return self.allocation;
}

bool PrebleTree::allocated(uint32_t node, uint32_t gpu) const {
  std::span<const uint32_t> a = allocation(node);
  return std::binary_search(a.begin(), a.end(), gpu);
}

bool PrebleTree::Allocate(uint32_t node, uint32_t gpu) {
  std::span<const uint32_t> current = allocation(node);
  if (std::binary_search(current.begin(), current.end(), gpu)) return false;
  Node& self = nodes_[node];
  if (current.data() != self.allocation.data())
    self.allocation.assign(current.begin(), current.end());
  self.allocation.insert(std::lower_bound(self.allocation.begin(), self.allocation.end(), gpu),
                         gpu);
  self.written = ++clock_;
  return true;
}

void PrebleTree::SetAllocation(uint32_t node, std::span<const uint32_t> gpus) {
  nodes_[node].allocation.assign(gpus.begin(), gpus.end());
  nodes_[node].written = ++clock_;
}

void PrebleTree::MoveSubtree(uint32_t node, uint32_t gpu) {
  const uint32_t only[] = {gpu};
  SetAllocation(node, only);
  nodes_[node].moved = nodes_[node].written;
  nodes_[node].moved_to = gpu;
}

uint32_t PrebleTree::refs(uint32_t node, uint32_t gpu) const {
  for (const auto& [g, count] : nodes_[node].refs) {
    if (g == gpu) return count;
  }
  return 0;
}

void PrebleTree::AddRefs(uint32_t node, uint32_t gpu, int delta) {
  auto& refs = nodes_[node].refs;
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
  // A release may find no reference of this replica on a node of the path
  // (the path's references were counted under another replica or already
  // released): counts never go below zero, so there is nothing to take back.
  if (delta > 0) refs.emplace_back(gpu, static_cast<uint32_t>(delta));
}

}  // namespace kvroute::policies
