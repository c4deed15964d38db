#include "policies/preble_histogram.h"

#include <cassert>
#include <cmath>

#include "sim/core/slot_pool.h"

// Invariants: a node is in the window iff it owns a slot; a slot's listed
// GPUs are exactly its node's allocation, it is in busy_lists_ of each of
// them when `busy`, and the per-GPU sums hold, for each of them, the slot's
// share and its listing's decode term (busy sums only when `busy`). Every
// change to those inputs retracts the slot's terms first and applies them
// again after, except a move's carrying of a one-GPU node's terms (MoveTerms).
// A slot's refs are its node's PrebleTree::sole_refs. A node other than the
// root is in its parent's branch list, at its branch_index, iff its
// window_below is > 0; a node with no branches has no branch list.

namespace kvroute::policies {

PrebleHistogram::PrebleHistogram(PrebleTree& tree, const CostEstimator& cost, uint32_t gpus,
                                 sim::Time window, int block_size)
    : tree_(tree),
      cost_(cost),
      window_(window),
      block_size_(block_size),
      prefill_ns_(gpus, 0),
      busy_prefill_ns_(gpus, 0),
      decode_(gpus, 0),
      busy_decode_(gpus, 0),
      busy_lists_(gpus) {}

void PrebleHistogram::CoverTree() {
  if (tree_.size() > nodes_.size()) nodes_.resize(tree_.size());
}

void PrebleHistogram::LinkBranch(uint32_t parent, uint32_t child) {
  uint32_t& list = nodes_[parent].branch_list;
  if (list == kNone) list = sim::TakeSlot(branch_lists_, free_branch_lists_);
  std::vector<uint32_t>& branches = branch_lists_[list];
  nodes_[child].branch_index = static_cast<uint32_t>(branches.size());
  branches.push_back(child);
}

void PrebleHistogram::UnlinkBranch(uint32_t parent, uint32_t child) {
  uint32_t& list = nodes_[parent].branch_list;
  std::vector<uint32_t>& branches = branch_lists_[list];
  const uint32_t last = branches.back();
  branches[nodes_[child].branch_index] = last;
  nodes_[last].branch_index = nodes_[child].branch_index;
  branches.pop_back();
  if (branches.empty()) {
    free_branch_lists_.push_back(list);
    list = kNone;
  }
}

void PrebleHistogram::CountWindowNode(uint32_t node, int by) {
  for (uint32_t n = node;; n = tree_.parent(n)) {
    uint32_t& below = nodes_[n].window_below;
    const bool had = below > 0;
    below += by;
    if (n == PrebleTree::kRoot) break;
    const bool has = below > 0;
    if (has && !had) LinkBranch(tree_.parent(n), n);
    if (had && !has) UnlinkBranch(tree_.parent(n), n);
  }
}

void PrebleHistogram::SetSlot(uint32_t node, uint32_t slot) {
  CoverTree();
  const bool was = nodes_[node].slot != kNone, is = slot != kNone;
  nodes_[node].slot = slot;
  if (was != is) CountWindowNode(node, is ? 1 : -1);
}

uint32_t PrebleHistogram::Count(uint32_t node) const {
  uint32_t slot = SlotOf(node);
  return slot == kNone ? 0 : static_cast<uint32_t>(stats_[slot].count);
}

// Swaps the last entry of the GPU's busy list into the node's place and
// tells the node that was last where it now is.
void PrebleHistogram::Unlist(uint32_t slot, const Listing& listing) {
  const uint32_t gpu = listing.gpu;
  std::vector<uint32_t>& busy = busy_lists_[gpu];
  const uint32_t moved = busy.back();
  busy[listing.busy_index] = moved;
  busy.pop_back();
  if (moved == stats_[slot].node) return;
  stats_[nodes_[moved].slot].ForEachListing([&](Listing& l) {
    if (l.gpu == gpu) l.busy_index = listing.busy_index;
  });
}

void PrebleHistogram::Retract(uint32_t slot) {
  Stat& s = stats_[slot];
  s.ForEachListing([&](const Listing& listing) {
    const uint32_t gpu = listing.gpu;
    prefill_ns_[gpu] -= s.share_ns;
    decode_[gpu] -= listing.decode;
    if (s.busy) {
      busy_prefill_ns_[gpu] -= s.share_ns;
      busy_decode_[gpu] -= listing.decode;
      Unlist(slot, listing);
    }
  });
  s.listings = 0;
  s.more.clear();
}

// get_prefill_cost: miss·count·T_prefill(num_tokens, context_length)/|alloc|.
void PrebleHistogram::Apply(uint32_t slot) {
  Stat& s = stats_[slot];
  const uint32_t blocks = tree_.blocks(s.node), context = tree_.context_blocks(s.node);
  if (blocks != s.prefill_blocks || context != s.prefill_context) {
    const uint32_t tokens = context * static_cast<uint32_t>(block_size_);
    s.prefill_s =
        cost_.PrefillSeconds(tokens, tokens - blocks * static_cast<uint32_t>(block_size_));
    s.prefill_blocks = blocks;
    s.prefill_context = context;
  }
  const std::span<const uint32_t> allocation = tree_.allocation(s.node);
  s.busy = s.count >= kBusyCount;
  s.refs = tree_.sole_refs(s.node);
  s.share_ns = 0;
  if (allocation.empty()) return;
  const double miss =
      s.prompt_tokens > 0 ? 1.0 - static_cast<double>(s.hit_tokens) / s.prompt_tokens : 1.0;
  s.share_ns = std::llround(miss * static_cast<double>(s.count) * s.prefill_s /
                            static_cast<double>(allocation.size()) * 1e9);
  for (uint32_t gpu : allocation) {
    const int64_t decode = static_cast<int64_t>(tree_.refs(s.node, gpu)) * s.decode_tokens;
    prefill_ns_[gpu] += s.share_ns;
    decode_[gpu] += decode;
    if (s.busy) {
      busy_prefill_ns_[gpu] += s.share_ns;
      busy_decode_[gpu] += decode;
    }
    Listing listing{gpu, kNone, decode};
    if (s.busy) {
      listing.busy_index = static_cast<uint32_t>(busy_lists_[gpu].size());
      busy_lists_[gpu].push_back(s.node);
    }
    if (s.listings++ == 0) {
      s.first = listing;
    } else {
      s.more.push_back(listing);
    }
  }
}

void PrebleHistogram::AllocatePath(uint32_t leaf, uint32_t gpu) {
  for (uint32_t n = leaf;; n = tree_.parent(n)) {
    if (!tree_.allocated(n, gpu)) {
      const uint32_t slot = SlotOf(n);
      if (slot != kNone) Retract(slot);
      tree_.Allocate(n, gpu);
      if (slot != kNone) Apply(slot);
    }
    if (n == PrebleTree::kRoot) break;
  }
}

void PrebleHistogram::AddRefsOnPath(uint32_t leaf, uint32_t gpu, int delta) {
  for (uint32_t n = leaf; n != PrebleTree::kRoot; n = tree_.parent(n)) {
    tree_.AddRefs(n, gpu, delta);
    const uint32_t slot = SlotOf(n);
    if (slot == kNone) continue;
    Stat& s = stats_[slot];
    s.refs = tree_.sole_refs(n);
    s.ForEachListing([&](Listing& listing) {  // listed on gpu = allocated to it
      if (listing.gpu != gpu) return;
      const int64_t change = delta * s.decode_tokens;
      listing.decode += change;
      decode_[gpu] += change;
      if (s.busy) busy_decode_[gpu] += change;
    });
  }
}

void PrebleHistogram::Replicate(uint32_t node, uint32_t gpu) {
  if (tree_.allocated(node, gpu)) return;
  const uint32_t slot = SlotOf(node);
  if (slot != kNone) Retract(slot);
  tree_.Allocate(node, gpu);
  if (slot != kNone) Apply(slot);
}

// The tree moves the subtree lazily, and the descendants read their new
// allocation from the root's move; window nodes in it are re-priced now, as
// their terms are in the sums. Only branches holding window nodes are walked,
// in no particular order: the sums are integers and rebalancing sorts the
// nodes it reads from the lists.
void PrebleHistogram::MoveSubtree(uint32_t node, uint32_t gpu) {
  const uint32_t root_slot = SlotOf(node);
  if (root_slot != kNone) Retract(root_slot);
  tree_.MoveSubtree(node, gpu);
  if (root_slot != kNone) Apply(root_slot);
  stack_.assign(1, node);
  while (!stack_.empty()) {
    const uint32_t n = stack_.back();
    stack_.pop_back();
    const uint32_t slot = SlotOf(n);
    if (n != node && slot != kNone) MoveTerms(slot, gpu);
    for (uint32_t c : WindowBranches(n)) {
      if (nodes_[c].slot != kNone) __builtin_prefetch(&stats_[nodes_[c].slot]);
      stack_.push_back(c);
    }
  }
}

// A window node below a move, whose allocation is now {gpu}. When it was one
// GPU already, its share (which depends on the allocation only through its
// size) carries over and only its decode term is read again; this is most
// nodes, and saves re-reading the node's geometry and allocation.
void PrebleHistogram::MoveTerms(uint32_t slot, uint32_t gpu) {
  Stat& s = stats_[slot];
  if (s.listings != 1) {
    Retract(slot);
    Apply(slot);
    return;
  }
  Listing& listing = s.first;
  const uint32_t from = listing.gpu;
  const uint32_t refs = s.refs.count == PrebleTree::kSeveral ? tree_.refs(s.node, gpu)
                        : s.refs.gpu == gpu                  ? s.refs.count
                                                             : 0;
  const int64_t decode = static_cast<int64_t>(refs) * s.decode_tokens;
  prefill_ns_[from] -= s.share_ns;
  prefill_ns_[gpu] += s.share_ns;
  decode_[from] -= listing.decode;
  decode_[gpu] += decode;
  if (s.busy) {
    busy_prefill_ns_[from] -= s.share_ns;
    busy_prefill_ns_[gpu] += s.share_ns;
    busy_decode_[from] -= listing.decode;
    busy_decode_[gpu] += decode;
    Unlist(slot, listing);
    listing.busy_index = static_cast<uint32_t>(busy_lists_[gpu].size());
    busy_lists_[gpu].push_back(s.node);
  }
  listing.gpu = gpu;
  listing.decode = decode;
}

void PrebleHistogram::OnSplit(const PrebleTree::Split& split) {
  CoverTree();
  // The new parent holds the same subtree and takes the child's place among
  // its parent's window branches; the child is then its only one.
  nodes_[split.parent].window_below = WindowBelow(split.child);
  if (WindowBelow(split.child) > 0) {
    const uint32_t above = tree_.parent(split.parent);
    const uint32_t index = nodes_[split.child].branch_index;
    branch_lists_[nodes_[above].branch_list][index] = split.parent;
    nodes_[split.parent].branch_index = index;
    LinkBranch(split.parent, split.child);
  }
  const uint32_t slot = SlotOf(split.child);
  if (slot == kNone) return;
  Retract(slot);
  if (tree_.large(split.parent) && !tree_.large(split.child)) {
    SetSlot(split.child, kNone);
    SetSlot(split.parent, slot);
    stats_[slot].node = split.parent;
  }
  Apply(slot);
}

void PrebleHistogram::Record(sim::Time now, uint32_t important, uint32_t leaf,
                             uint32_t decode_tokens) {
  uint32_t slot = SlotOf(important);
  if (slot == kNone) {
    slot = sim::TakeSlot(stats_, free_);
    Stat& s = stats_[slot];
    s.node = important;
    s.count = s.hit_tokens = s.prompt_tokens = 0;
    s.prefill_blocks = s.prefill_context = 0;
    SetSlot(important, slot);
  } else {
    Retract(slot);
  }
  const int64_t hit = static_cast<int64_t>(tree_.context_so_far(leaf)) * block_size_;
  const int64_t prompt = static_cast<int64_t>(tree_.context_blocks(leaf)) * block_size_;
  Stat& s = stats_[slot];
  ++s.count;
  s.hit_tokens += hit;
  s.prompt_tokens += prompt;
  s.decode_tokens = decode_tokens;
  Apply(slot);
  entries_.push_back({now, slot, hit, prompt});
  Expire(now);
}

void PrebleHistogram::Expire(sim::Time now) {
  while (!entries_.empty() && entries_.front().time < now - window_) {
    const Entry e = entries_.front();
    entries_.pop_front();
    Stat& s = stats_[e.slot];
    Retract(e.slot);
    --s.count;
    s.hit_tokens -= e.hit_tokens;
    s.prompt_tokens -= e.prompt_tokens;
    if (s.count > 0) {
      Apply(e.slot);
      continue;
    }
    // "Reset the gpu allocation outside the time window".
    tree_.SetAllocation(s.node, {});
    SetSlot(s.node, kNone);
    s.node = kNone;
    free_.push_back(e.slot);
  }
}

double PrebleHistogram::Cost(uint32_t gpu, double tpot_s, bool busy_only) const {
  const int64_t prefill = busy_only ? busy_prefill_ns_[gpu] : prefill_ns_[gpu];
  const int64_t decode = busy_only ? busy_decode_[gpu] : decode_[gpu];
  return static_cast<double>(prefill) * 1e-9 + static_cast<double>(decode) * tpot_s;
}

double PrebleHistogram::NodeCost(uint32_t node, uint32_t gpu, double tpot_s) const {
  const uint32_t slot = SlotOf(node);
  if (slot == kNone) return 0;
  const Stat& s = stats_[slot];
  return static_cast<double>(s.share_ns) * 1e-9 +
         static_cast<double>(tree_.refs(node, gpu)) * static_cast<double>(s.decode_tokens) * tpot_s;
}

}  // namespace kvroute::policies
