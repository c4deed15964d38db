// Preble's sliding-window histogram and per-GPU load cost (WukLab/preble
// preble/global_scheduler_with_time.py, SlidingWindowHistogram; policies.md
// §5). Over the last `window` of routing decisions it keeps, per "important"
// node n, the request count, hit and prompt tokens (miss_n = 1 − hit/prompt)
// and the last request's decode length, and prices each GPU g as
//   cost(g) = Σ_{n in window, g ∈ alloc(n)} miss_n·count_n·T_prefill(n)/|alloc(n)|
//                                          + ref_n[g]·decode_n·TPOT_g
// with T_prefill(n) the cost model's prefill of n's own tokens after its
// context. Preble rescans the window for every request
// (current_allocation_per_gpu); here each node's terms are kept in per-GPU
// running sums, updated whenever a term changes. The prefill share is summed
// in integer nanoseconds and the decode term in integer tokens, so the sums
// are exactly the sums of the current terms, whatever the history.
//
// All allocation and reference-count changes of the tree go through this
// class, which keeps the sums and the per-GPU node lists in step with them.
#ifndef KVROUTE_POLICIES_PREBLE_HISTOGRAM_H_
#define KVROUTE_POLICIES_PREBLE_HISTOGRAM_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "policies/cost_estimate.h"
#include "policies/preble_tree.h"
#include "sim/core/ring_deque.h"
#include "sim/core/time.h"

namespace kvroute::policies {

class PrebleHistogram {
 public:
  // `tree` and `cost` outlive the histogram.
  PrebleHistogram(PrebleTree& tree, const CostEstimator& cost, uint32_t gpus, sim::Time window,
                  int block_size);

  // update_gpu_allocation_for_parent: `gpu` joins the allocation of `leaf`
  // and of every ancestor, the root included.
  void AllocatePath(uint32_t leaf, uint32_t gpu);
  // update_allocated_size / dec_ref_counter: ref_n[gpu] += delta for `leaf`
  // and its ancestors below the root.
  void AddRefsOnPath(uint32_t leaf, uint32_t gpu, int delta);
  // Replication: `gpu` joins the node's allocation.
  void Replicate(uint32_t node, uint32_t gpu);
  // A move: the node and all its descendants are allocated to `gpu` alone
  // (gpu_allocations[node] = {gpu}; update_children).
  void MoveSubtree(uint32_t node, uint32_t gpu);
  // handle_split_node_histogram: a split child's window entry passes to the
  // new parent when the parent is large and the child no longer is; its
  // prefill time is recomputed either way.
  void OnSplit(const PrebleTree::Split& split);

  // SlidingWindowHistogram.update: one request routed through `important`
  // ending at `leaf` at `now`, then entries older than the window expire; a
  // node whose count drops to zero leaves the window and loses its
  // allocation.
  void Record(sim::Time now, uint32_t important, uint32_t leaf, uint32_t decode_tokens);

  // cost(g) with `tpot_s` = median TPOT of g. `busy_only`: only nodes with
  // count ≥ 2 (current_allocation_per_gpu_with_atleast_min_load(2)).
  double Cost(uint32_t gpu, double tpot_s, bool busy_only = false) const;
  // get_node_cost: node n's term in cost(gpu).
  double NodeCost(uint32_t node, uint32_t gpu, double tpot_s) const;

  // The window nodes allocated to `gpu` with Count ≥ 2, in no particular
  // order: rebalancing's candidates, asked after almost every request, are
  // among these few rather than the window's many nodes seen once (which
  // are listed nowhere: only their terms are in the sums).
  std::span<const uint32_t> BusyNodesOn(uint32_t gpu) const { return busy_lists_[gpu]; }
  bool InWindow(uint32_t node) const { return SlotOf(node) != kNone; }
  // The node's children with window nodes in their subtrees, in no
  // particular order: the branches a move walks.
  std::span<const uint32_t> WindowBranches(uint32_t node) const {
    const uint32_t list = node < nodes_.size() ? nodes_[node].branch_list : kNone;
    return list == kNone ? std::span<const uint32_t>{} : branch_lists_[list];
  }
  uint32_t Count(uint32_t node) const;
  size_t window_nodes() const { return stats_.size() - free_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr int64_t kBusyCount = 2;

  // One GPU of a window node's allocation: where the node is in its busy
  // list and the decode term it added to the GPU's sums.
  struct Listing {
    uint32_t gpu;
    uint32_t busy_index;  // in busy_lists_[gpu], kNone unless busy
    int64_t decode;       // refs·decode_tokens, as applied and changed since
  };
  // One important node's window statistics and the terms it has added to
  // the sums (for exactly the GPUs it is listed on, = its allocation). What a
  // move reads comes first, in the slot's first cache line.
  struct alignas(64) Stat {
    uint32_t node = kNone;
    uint32_t listings = 0;
    bool busy = false;  // applied with count ≥ 2
    // The tree's reference counts of the node, as of the last change to
    // them, so a move need not read the tree node.
    PrebleTree::SoleRefs refs;
    int64_t share_ns = 0;  // applied miss·count·T_prefill/|alloc|
    int64_t decode_tokens = 0;
    // One listing per GPU of the allocation: the first held here (most
    // allocations are one GPU, and a move touches every window node of the
    // subtree, so a node's terms are read without leaving its slot), the
    // others in `more`.
    Listing first{};
    int64_t count = 0;
    int64_t hit_tokens = 0;
    int64_t prompt_tokens = 0;
    uint32_t prefill_blocks = 0, prefill_context = 0;  // the geometry prefill_s is for
    double prefill_s = 0;
    std::vector<Listing> more;
    template <typename F>
    void ForEachListing(F&& f) {
      if (listings == 0) return;
      f(first);
      for (Listing& l : more) f(l);
    }
  };
  struct Entry {
    sim::Time time;
    uint32_t slot;
    int64_t hit_tokens;  // as recorded, so expiry removes exactly what was added
    int64_t prompt_tokens;
  };

  uint32_t SlotOf(uint32_t node) const { return node < nodes_.size() ? nodes_[node].slot : kNone; }
  uint32_t WindowBelow(uint32_t node) const {
    return node < nodes_.size() ? nodes_[node].window_below : 0;
  }
  // Grows the per-node tables to the tree's size.
  void CoverTree();
  // Adds `by` (±1) to window_below of the node and its ancestors, keeping
  // each parent's list of window branches in step.
  void CountWindowNode(uint32_t node, int by);
  void LinkBranch(uint32_t parent, uint32_t child);
  void UnlinkBranch(uint32_t parent, uint32_t child);
  void Retract(uint32_t slot);
  void Apply(uint32_t slot);
  void MoveTerms(uint32_t slot, uint32_t gpu);
  void Unlist(uint32_t slot, const Listing& listing);
  void Expire(sim::Time now);
  void SetSlot(uint32_t node, uint32_t slot);

  PrebleTree& tree_;
  const CostEstimator& cost_;
  sim::Time window_;
  int block_size_;
  std::vector<Stat> stats_;
  std::vector<uint32_t> free_;
  // What the histogram keeps per tree node, in one place: a move reads all of
  // it for every window node of the subtree.
  struct NodeState {
    uint32_t slot = kNone;      // in stats_, kNone outside the window
    uint32_t window_below = 0;  // window nodes in the node's subtree, itself included
    // Its children with window nodes below (window_below > 0), in no
    // particular order: a move walks these branches only, not every child
    // of a shared prefix (Preble's tree keeps every prompt ever routed, so a
    // system prompt's node has one child per request). An array, so that a
    // move reads the children's states at once rather than one by one down a
    // linked list; kNone when the node has none.
    uint32_t branch_list = kNone;  // in branch_lists_
    uint32_t branch_index = 0;     // where it is in its parent's list
  };
  std::vector<NodeState> nodes_;
  // Nodes' branch arrays; an emptied one is kept, with its storage, for the
  // next node that needs one.
  std::vector<std::vector<uint32_t>> branch_lists_;
  std::vector<uint32_t> free_branch_lists_;
  sim::RingDeque<Entry> entries_;
  std::vector<int64_t> prefill_ns_, busy_prefill_ns_;  // per GPU
  std::vector<int64_t> decode_, busy_decode_;          // Σ ref·decode tokens per GPU
  std::vector<std::vector<uint32_t>> busy_lists_;      // per GPU: its busy window nodes
  std::vector<uint32_t> stack_;                        // scratch for MoveSubtree
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PREBLE_HISTOGRAM_H_
