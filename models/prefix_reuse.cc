#include "models/prefix_reuse.h"

#include <algorithm>
#include <bit>

#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr uint32_t kInitialGroups = 1 << 16;
constexpr uint64_t kContinuationSalt = 0x434f4e54494e5545ULL;

// A run's first block is keyed by its own hash. A later block of a run only
// continues its parent's segment, so "the continuation of parent" names it:
// the key is derived from the parent's hash (never 0, which the index reserves).
uint64_t ContinuationKey(uint64_t parent) {
  uint64_t key = sim::Combine(parent, kContinuationSalt);
  return key == 0 ? 1 : key;
}

}  // namespace

PrefixReuse::PrefixReuse()
    : index_(kInitialGroups),
      index_capacity_(kInitialGroups),
      tree_(kInitialGroups + 1, 0),
      owner_(kInitialGroups + 1, kNone) {}

std::span<const PrefixReuse::Match> PrefixReuse::Observe(std::span<const uint64_t> blocks,
                                                         std::span<const uint32_t> run_ends,
                                                         sim::Time now) {
  matches_.clear();
  path_.clear();
  const uint32_t n = static_cast<uint32_t>(blocks.size());
  size_t run = 0;
  uint32_t run_start = 0;
  auto key_at = [&](uint32_t p) {
    while (run_ends[run] <= p) run_start = run_ends[run++];
    return p == run_start ? blocks[p] : ContinuationKey(blocks[p - 1]);
  };

  // Down the trie as far as the prompt's blocks are there.
  uint32_t p = 0;
  while (p < n) {
    uint64_t key = key_at(p);
    uint32_t g = index_.Find(key);
    if (g == sim::FlatHashIndex::kAbsent) break;
    uint32_t matched = std::min(run_ends[run] - p, groups_[g].blocks);
    matches_.push_back(
        {matched, groups_[g].last_seen, total_blocks_ - PrefixSum(groups_[g].event)});
    if (matched < groups_[g].blocks) {
      // The prompt's run ends inside the group: its tail becomes a group of
      // its own, keeping the touch entry (the tail was touched before the
      // head, so it is the older part of that entry).
      Group tail = groups_[g];
      tail.blocks -= matched;
      uint32_t t = NewGroup(ContinuationKey(blocks[p + matched - 1]), tail.blocks, tail.event,
                            tail.last_seen);
      owner_[tail.event] = t;
      groups_[g].blocks = matched;
    }
    path_.push_back(g);
    p += matched;
  }
  // The rest of the prompt is new: a group per run (remainder).
  while (p < n) {
    uint64_t key = key_at(p);
    uint32_t end = run_ends[run];
    path_.push_back(NewGroup(key, end - p, 0, now));
    p = end;
  }

  // Touch: take the path's groups out of the touch order, then put them back
  // as the newest entries, deepest first (as a prompt's blocks are touched).
  for (size_t i = 0; i < matches_.size(); ++i) {
    Group& g = groups_[path_[i]];
    Add(g.event, -static_cast<int64_t>(g.blocks));
    if (owner_[g.event] == path_[i]) owner_[g.event] = kNone;
    g.event = 0;
  }
  for (size_t i = path_.size(); i-- > 0;) Touch(path_[i], now);
  return matches_;
}

uint32_t PrefixReuse::NewGroup(uint64_t key, uint32_t blocks, uint32_t event, sim::Time last_seen) {
  uint32_t id = static_cast<uint32_t>(groups_.size());
  if (id == index_capacity_) {
    // The index is full: rebuild it twice as large from the groups' keys.
    index_capacity_ *= 2;
    index_ = sim::FlatHashIndex(index_capacity_);
    for (uint32_t i = 0; i < id; ++i) index_.Insert(keys_[i], i);
  }
  groups_.push_back({blocks, event, last_seen});
  keys_.push_back(key);
  index_.Insert(key, id);
  return id;
}

void PrefixReuse::Touch(uint32_t group, sim::Time now) {
  if (next_event_ == tree_.size()) Renumber();
  uint32_t e = next_event_++;
  owner_[e] = group;
  groups_[group].event = e;
  groups_[group].last_seen = now;
  Add(e, groups_[group].blocks);
}

uint64_t PrefixReuse::PrefixSum(uint32_t event) const {
  uint64_t sum = 0;
  for (uint32_t i = event; i > 0; i &= i - 1) sum += tree_[i];
  return sum;
}

void PrefixReuse::Add(uint32_t event, int64_t delta) {
  total_blocks_ += static_cast<uint64_t>(delta);
  for (size_t i = event; i < tree_.size(); i += i & (~i + 1)) {
    tree_[i] += static_cast<uint64_t>(delta);
  }
}

// The touch order has run out of entries: number the live ones (one per
// group) 1, 2, ... in the same order, in a tree at least twice their count.
void PrefixReuse::Renumber() {
  size_t live = 0;
  for (size_t e = 1; e < next_event_; ++e) live += owner_[e] != kNone;
  size_t capacity = std::bit_ceil(std::max<size_t>(2 * (live + 1), kInitialGroups));
  std::vector<uint64_t> tree(capacity + 1, 0);
  std::vector<uint32_t> owner(capacity + 1, kNone);
  uint32_t j = 0;
  for (size_t e = 1; e < next_event_; ++e) {
    if (owner_[e] == kNone) continue;
    ++j;
    owner[j] = owner_[e];
    groups_[owner_[e]].event = j;
    tree[j] = groups_[owner_[e]].blocks;
  }
  // Linear-time Fenwick build: each node passes its sum to its parent.
  for (size_t i = 1; i <= capacity; ++i) {
    size_t parent = i + (i & (~i + 1));
    if (parent <= capacity) tree[parent] += tree[i];
  }
  tree_.swap(tree);
  owner_.swap(owner);
  next_event_ = j + 1;
}

void SegmentRunEnds(std::span<const PromptSegment> segments, uint32_t block_size, uint32_t blocks,
                    std::vector<uint32_t>* out) {
  out->clear();
  uint64_t end = 0;
  for (const PromptSegment& s : segments) {
    end += s.tokens;
    uint32_t run_end = static_cast<uint32_t>(std::min<uint64_t>(end / block_size, blocks));
    if (run_end > (out->empty() ? 0 : out->back())) out->push_back(run_end);
  }
  if (out->empty() || out->back() < blocks) out->push_back(blocks);
}

}  // namespace kvroute::models
