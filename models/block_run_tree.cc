#include "models/block_run_tree.h"

#include <algorithm>
#include <cassert>
#include <cstring>

// Invariants:
//  - every node but the root has a parent, a non-empty run, and an end depth
//    of its parent's plus its length; a node's `children` counts the nodes
//    whose parent it is;
//  - the index maps the first block of every node but the root, and nothing
//    else, to the node;
//  - live runs are disjoint ranges of runs_[0, top_), each within its node's
//    capacity.

namespace kvroute::models {
namespace {

constexpr uint32_t kInitialArena = 1024;

}  // namespace

void BlockChain::CopyTo(uint32_t from, uint32_t to, uint64_t* out) const {
  const uint32_t split = static_cast<uint32_t>(prompt_.size());
  if (from < split) {
    const uint32_t end = std::min(to, split);
    std::memcpy(out, prompt_.data() + from, (end - from) * sizeof(uint64_t));
    out += end - from;
    from = end;
  }
  if (from < to) {
    std::memcpy(out, output_.data() + (from - split), (to - from) * sizeof(uint64_t));
  }
}

BlockRunTree::BlockRunTree() : nodes_(1), runs_(kInitialArena) {}

uint32_t BlockRunTree::MatchRun(uint32_t node, BlockChain chain, uint32_t pos, uint32_t end) const {
  const Node& n = nodes_[node];
  const uint32_t k = std::min(n.length, end - pos);
  assert(k > 0 && chain[pos] == runs_[n.begin]);
  const uint64_t* run = runs_.data() + n.begin;
  if (chain[pos + k - 1] == run[k - 1]) return k;
  // run[lo] matches, run[hi] does not.
  uint32_t lo = 0, hi = k - 1;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (chain[pos + mid] == run[mid]) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo + 1;
}

uint32_t BlockRunTree::AncestorAt(uint32_t node, uint32_t depth) const {
  assert(depth > 0 && depth <= end_depth(node));
  while (start_depth(node) >= depth) node = parent(node);
  return node;
}

uint32_t BlockRunTree::NewNode() {
  ++live_;
  if (!free_nodes_.empty()) {
    const uint32_t id = free_nodes_.back();
    free_nodes_.pop_back();
    return id;
  }
  nodes_.emplace_back();
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t BlockRunTree::AddChild(uint32_t parent, BlockChain chain, uint32_t from, uint32_t to,
                                uint32_t reserve) {
  assert(from < to);
  const uint32_t length = to - from;
  const uint32_t begin = Allocate(length + reserve);
  const uint32_t id = NewNode();
  Node& n = nodes_[id];
  n = Node{.first = chain[from],
           .parent = parent,
           .begin = begin,
           .length = length,
           .capacity = length + reserve,
           .end_depth = nodes_[parent].end_depth + length,
           .children = 0};
  chain.CopyTo(from, to, runs_.data() + begin);
  ++nodes_[parent].children;
  index_.Insert(chain[from], id);
  if (filter_ != nullptr) filter_->Add(chain[from]);
  return id;
}

void BlockRunTree::Append(uint32_t leaf, BlockChain chain, uint32_t from, uint32_t to) {
  assert(leaf != kRoot && nodes_[leaf].children == 0 && from < to);
  const uint32_t more = to - from;
  Node* n = &nodes_[leaf];
  if (n->length + more > n->capacity) {
    const uint32_t grow = n->length + more - n->capacity;
    if (n->begin + n->capacity == top_ && top_ + grow <= runs_.size()) {
      top_ += grow;  // the last range in the arena: grow in place
      n->capacity += grow;
    } else {
      // Move, leaving room to keep appending (a decode adds a block at a time).
      const uint32_t capacity = std::max(n->length + more, 2 * n->length);
      const uint32_t begin = Allocate(capacity);
      n = &nodes_[leaf];  // compaction may have moved the run
      std::memmove(runs_.data() + begin, runs_.data() + n->begin, n->length * sizeof(uint64_t));
      n->begin = begin;
      n->capacity = capacity;
    }
  }
  chain.CopyTo(from, to, runs_.data() + n->begin + n->length);
  n->length += more;
  n->end_depth += more;
}

uint32_t BlockRunTree::Split(uint32_t node, uint32_t keep) {
  assert(node != kRoot && keep > 0 && keep < nodes_[node].length);
  const uint32_t id = NewNode();
  Node& lower = nodes_[node];
  Node& upper = nodes_[id];
  upper = Node{.first = lower.first,
               .parent = lower.parent,
               .begin = lower.begin,
               .length = keep,
               .capacity = keep,
               .end_depth = lower.end_depth - lower.length + keep,
               .children = 1};
  lower.parent = id;
  lower.begin += keep;
  lower.length -= keep;
  lower.capacity -= keep;
  lower.first = runs_[lower.begin];
  // The upper node starts where `node` did, so it takes over its index entry.
  index_.Set(upper.first, id);
  index_.Insert(lower.first, node);
  if (filter_ != nullptr) filter_->Add(nodes_[node].first);
  return id;
}

void BlockRunTree::TruncateTail(uint32_t leaf, uint32_t blocks) {
  Node& n = nodes_[leaf];
  assert(leaf != kRoot && n.children == 0 && blocks > 0 && blocks < n.length);
  n.length -= blocks;
  n.end_depth -= blocks;
}

void BlockRunTree::Remove(uint32_t leaf) {
  Node& n = nodes_[leaf];
  assert(leaf != kRoot && n.parent != kNone && n.children == 0);
  index_.Erase(n.first);
  if (filter_ != nullptr) filter_->Remove(n.first);
  --nodes_[n.parent].children;
  n = Node{};
  free_nodes_.push_back(leaf);
  --live_;
}

void BlockRunTree::Clear() {
  if (filter_ != nullptr) {
    for (uint32_t node = 1; node < node_slots(); ++node) {
      if (live(node)) filter_->Remove(nodes_[node].first);
    }
  }
  nodes_.resize(1);
  nodes_[kRoot] = Node{};
  free_nodes_.clear();
  live_ = 0;
  top_ = 0;
  index_.Clear();
}

uint32_t BlockRunTree::Allocate(uint32_t n) {
  if (top_ + n > runs_.size()) Compact(n);
  const uint32_t begin = top_;
  top_ += n;
  return begin;
}

// Moves every live run to the front of the arena in arena order, leaving no
// spare capacity, then grows the arena if less than half of it would be free
// after the allocation that asked. Between two compactions at least half the
// arena is allocated, so each costs O(1) per word allocated, and the arena
// stays within 2 to 4 times the live runs. A tree that only grows (Preble's
// global tree) leaves nothing to reclaim: then nothing is moved.
void BlockRunTree::Compact(uint32_t need) {
  scratch_.clear();
  uint64_t live_words = 0;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    if (nodes_[id].parent == kNone) continue;
    scratch_.push_back(id);
    live_words += nodes_[id].length;
  }
  if (live_words < top_) Reclaim();
  const uint64_t wanted = uint64_t{top_} + need;
  if (2 * wanted > uint64_t{runs_.size()}) {
    runs_.Grow(std::max<uint64_t>(2 * runs_.size(), 2 * wanted));
  }
}

// Moves the runs of the nodes in scratch_ to the front of the arena.
void BlockRunTree::Reclaim() {
  std::sort(scratch_.begin(), scratch_.end(),
            [this](uint32_t a, uint32_t b) { return nodes_[a].begin < nodes_[b].begin; });
  uint32_t write = 0;
  for (uint32_t id : scratch_) {
    Node& n = nodes_[id];
    std::memmove(runs_.data() + write, runs_.data() + n.begin, n.length * sizeof(uint64_t));
    n.begin = write;
    n.capacity = n.length;
    write += n.length;
  }
  top_ = write;
}

std::string BlockRunTree::CheckInvariants() const {
  if (nodes_[kRoot].parent != kNone || nodes_[kRoot].length != 0) return "root holds blocks";
  std::vector<uint32_t> children(nodes_.size(), 0);
  uint32_t live = 0;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (n.parent == kNone) continue;
    ++live;
    if (n.length == 0) return "empty run";
    if (n.length > n.capacity) return "run beyond its capacity";
    if (n.begin + n.capacity > top_) return "run beyond the arena's used part";
    if (nodes_[n.parent].parent == kNone && n.parent != kRoot) return "parent is free";
    if (n.end_depth != nodes_[n.parent].end_depth + n.length) return "end depth";
    if (n.first != runs_[n.begin]) return "first block differs from the run's";
    if (Child(n.first) != id) return "first block not indexed to its node";
    ++children[n.parent];
    ranges.emplace_back(n.begin, n.begin + n.capacity);
  }
  if (live != live_) return "live node count";
  if (index_.size() != live_) return "index size differs from node count";
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    if ((id == kRoot || nodes_[id].parent != kNone) && children[id] != nodes_[id].children)
      return "children count";
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) return "runs overlap";
  }
  return "";
}

}  // namespace kvroute::models
