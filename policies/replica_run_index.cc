#include "policies/replica_run_index.h"

#include <algorithm>
#include <cassert>

#include "policies/prompt_chain.h"
#include "sim/core/slot_pool.h"

// Invariants: an entry is on exactly one node's list and one replica's list,
// and in index_ under (node, replica), at most one per pair; 0 <= lo < hi <=
// its node's length(); a node other than the root has an entry or a child. A
// node with unhashed blocks is a leaf whose run in tree_ is its first block,
// with a recipe; a free node id has neither.

namespace kvroute::policies {

ReplicaRunIndex::ReplicaRunIndex(uint32_t replicas) : lists_(replicas) {}

template <typename Chain>
std::span<const uint32_t> ReplicaRunIndex::InsertChain(const Chain& chain) {
  path_.clear();
  const uint32_t n = chain.size();
  uint32_t node = models::BlockRunTree::kRoot;
  uint32_t pos = 0;
  while (pos < n) {
    std::span<const uint64_t> known = chain.Prefix(pos + 1);
    uint32_t child = tree_.Child(known[pos]);
    if (child == models::BlockRunTree::kNone) {
      if constexpr (Chain::kLazy) {
        if (chain.DeferLeafAt(pos)) {
          child = AddUnhashedLeaf(node, chain.hashes, known, pos, n);
        } else {
          child = tree_.AddChild(node, models::BlockChain(chain.Prefix(n)), pos, n);
        }
      } else {
        child = tree_.AddChild(node, models::BlockChain(known), pos, n);
      }
      if (first_on_.size() < tree_.node_slots()) first_on_.resize(tree_.node_slots(), kNone);
      path_.push_back(child);
      break;
    }
    const uint32_t end = std::min(n, pos + length(child));
    known = chain.Prefix(end);
    const uint32_t matched = MatchRun(child, models::BlockChain(known), pos, end);
    if (matched < length(child)) child = SplitNode(child, matched);
    path_.push_back(child);
    pos += matched;
    node = child;
  }
  return path_;
}

std::span<const uint32_t> ReplicaRunIndex::InsertPath(std::span<const uint64_t> chain) {
  return InsertChain(WholeChain{chain});
}

std::span<const uint32_t> ReplicaRunIndex::InsertPath(const models::RequestHashes& hashes) {
  if (hashes.segments().empty()) return InsertPath(hashes.prompt());  // written directly
  return InsertChain(PromptChain{hashes});
}

uint32_t ReplicaRunIndex::AddUnhashedLeaf(uint32_t parent, const models::RequestHashes& hashes,
                                          std::span<const uint64_t> known, uint32_t pos,
                                          uint32_t size) {
  const uint32_t leaf =
      tree_.AddChild(parent, models::BlockChain(known.first(pos + 1)), pos, pos + 1);
  if (unhashed_.size() < tree_.node_slots()) {
    unhashed_.resize(tree_.node_slots(), 0);
    recipe_of_.resize(tree_.node_slots(), kNone);
  }
  const uint32_t r = sim::TakeSlot(recipes_, free_recipes_);
  const std::span<const models::PromptSegment> segments = hashes.segments();
  recipes_[r].segments.assign(segments.begin(), segments.end());
  recipes_[r].block_size = hashes.block_size();
  unhashed_[leaf] = size - pos - 1;
  recipe_of_[leaf] = r;
  return leaf;
}

void ReplicaRunIndex::HashLeaf(uint32_t node) const {
  const Recipe& recipe = recipes_[recipe_of_[node]];
  HashUnhashedLeaf(tree_, node, unhashed_[node], recipe.segments, recipe.block_size, &scratch_);
  DropRecipe(node);
}

void ReplicaRunIndex::DropRecipe(uint32_t node) const {
  free_recipes_.push_back(recipe_of_[node]);
  recipe_of_[node] = kNone;
  unhashed_[node] = 0;
}

uint32_t ReplicaRunIndex::MatchRun(uint32_t node, models::BlockChain chain, uint32_t pos,
                                   uint32_t end) const {
  if (unhashed(node) > 0) HashLeaf(node);
  return tree_.MatchRun(node, chain, pos, end);
}

uint32_t ReplicaRunIndex::SplitNode(uint32_t node, uint32_t keep) {
  if (unhashed(node) > 0) HashLeaf(node);
  const uint32_t upper = tree_.Split(node, keep);
  if (first_on_.size() < tree_.node_slots()) first_on_.resize(tree_.node_slots(), kNone);
  first_on_[upper] = kNone;
  // Re-key the entries one at a time; an entry left holding nothing of the
  // lower part goes, which may remove the lower node (never the upper one,
  // which keeps that entry's first part).
  uint32_t e = first_on_[node];
  while (e != kNone) {
    const uint32_t next = entries_[e].node_next;
    Entry& x = entries_[e];
    const uint32_t lo = x.lo, hi = x.hi;
    if (lo < keep) {
      uint32_t u;
      if (!free_entries_.empty()) {
        u = free_entries_.back();
        free_entries_.pop_back();
      } else {
        u = static_cast<uint32_t>(entries_.size());
        entries_.emplace_back();
      }
      Entry& y = entries_[u];
      const Entry& old = entries_[e];
      y = Entry{.node = upper,
                .replica = old.replica,
                .lo = lo,
                .hi = std::min(hi, keep),
                .time = old.time};
      y.node_next = first_on_[upper];
      if (y.node_next != kNone) entries_[y.node_next].node_prev = u;
      first_on_[upper] = u;
      index_.Insert(Key(upper, y.replica), u);
      LinkBefore(u, e);
    }
    if (hi > keep) {
      entries_[e].lo = std::max(lo, keep) - keep;
      entries_[e].hi = hi - keep;
    } else {
      Remove(e);
    }
    e = next;
  }
  return upper;
}

uint32_t ReplicaRunIndex::Add(uint32_t node, uint32_t replica, uint32_t lo, uint32_t hi,
                              sim::Time time) {
  assert(lo < hi && hi <= length(node) && Find(node, replica) == kNone);
  uint32_t e;
  if (!free_entries_.empty()) {
    e = free_entries_.back();
    free_entries_.pop_back();
  } else {
    e = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& x = entries_[e];
  x = Entry{.node = node, .replica = replica, .lo = lo, .hi = hi, .time = time};
  x.node_next = first_on_[node];
  if (x.node_next != kNone) entries_[x.node_next].node_prev = e;
  first_on_[node] = e;
  index_.Insert(Key(node, replica), e);
  LinkBefore(e, kNone);
  return e;
}

void ReplicaRunIndex::Remove(uint32_t e) {
  Entry& x = entries_[e];
  const uint32_t node = x.node;
  Unlink(e);
  (x.node_prev == kNone ? first_on_[node] : entries_[x.node_prev].node_next) = x.node_next;
  if (x.node_next != kNone) entries_[x.node_next].node_prev = x.node_prev;
  index_.Erase(Key(node, x.replica));
  x = Entry{};
  free_entries_.push_back(e);
  Prune(node);
}

void ReplicaRunIndex::Prune(uint32_t node) {
  while (node != models::BlockRunTree::kRoot && first_on_[node] == kNone &&
         tree_.children(node) == 0) {
    const uint32_t parent = tree_.parent(node);
    if (unhashed(node) > 0) DropRecipe(node);
    tree_.Remove(node);
    node = parent;
  }
}

void ReplicaRunIndex::MoveToTail(uint32_t e) {
  Unlink(e);
  LinkBefore(e, kNone);
}

void ReplicaRunIndex::Unlink(uint32_t e) {
  Entry& x = entries_[e];
  List& list = lists_[x.replica];
  (x.list_prev == kNone ? list.head : entries_[x.list_prev].list_next) = x.list_next;
  (x.list_next == kNone ? list.tail : entries_[x.list_next].list_prev) = x.list_prev;
  x.list_prev = x.list_next = kNone;
}

void ReplicaRunIndex::LinkBefore(uint32_t e, uint32_t before) {
  Entry& x = entries_[e];
  List& list = lists_[x.replica];
  x.list_next = before;
  x.list_prev = before == kNone ? list.tail : entries_[before].list_prev;
  (x.list_prev == kNone ? list.head : entries_[x.list_prev].list_next) = e;
  (before == kNone ? list.tail : entries_[before].list_prev) = e;
}

}  // namespace kvroute::policies
