// preble: Preble's global scheduler (WukLab/preble
// preble/global_scheduler_with_time.py, GlobalSchedulerWithTime; Srivatsa et
// al., arXiv 2407.00023; policies.md §5), one of the CacheRoute paper's five
// baselines (seed 003 §4, §5.1).
//   leaf = tree.insert(prompt)          (leaf's blocks: missed; context_so_far: cached)
//   important = nearest ancestor-or-self with more blocks than its context
//   if leaf.blocks < leaf.context_so_far:   E2 exploit: the allocation of the
//        nearest allocated ancestor-or-self (every replica if none), argmin
//        cost(g) within it when it has several
//   else explore: argmin cost(g) over every replica
//   allocate the path to the pick; record (important, leaf) in the window;
//   rebalance when the leaf is fewer than chain_length nodes below important.
// cost(g) is preble_histogram.h's. Rebalancing (handle_important_node_stealing)
// starts once rebalance_after_per_replica·R requests have been routed (Preble's
// per_gpu_load only ever grows): replicas sorted by the cost of their nodes
// with count ≥ 2, the costliest L against the cheapest S while L ≥
// high_load_threshold·S; L's candidates are its large window nodes with count
// ≥ 2. A single candidate is replicated to S when the TTFT detector finds it
// overloaded on L (its cost halved between them); otherwise the cheapest
// candidates, with their subtrees, move to S while L − c ≥ S + c. Then L is
// dropped and the next costliest faces the same S, without re-sorting.
//
// Departures: replicas are only chosen, replicated to or rebalanced onto when
// healthy; Preble's exploit branch returns the argmin's index within the
// allocation set rather than the GPU (a bug) — here the GPU; equal costs go
// to the lowest replica, equal candidates to the older node where Preble
// compares node objects. Window entries remember the hit and prompt tokens
// they added, where Preble subtracts the leaf's current ones (changed by later
// splits). Each request's TPOT (after its first token) and TTFT come from the
// simulation's first-token and completion callbacks; a request dropped by a
// failed replica reports a TPOT over the tokens it had made. References are
// counted from routing, as Preble's scheduler does, so a request in the
// serving front end counts; one that never reaches its queue (rejected, or
// its replica failed first) has them undone (OnNotDispatched). Eviction
// modelling (enable_eviction, off in Preble) is not implemented.
#include <algorithm>
#include <utility>
#include <vector>

#include "models/hash_index.h"
#include "policies/builtin_policies.h"
#include "policies/cost_estimate.h"
#include "policies/median_window.h"
#include "policies/preble_histogram.h"
#include "policies/preble_overload.h"
#include "policies/preble_tree.h"
#include "sim/core/slot_pool.h"

namespace kvroute::policies {
namespace {

// Request id -> the leaf and replica it was routed to and its first-token
// time, for the requests routed and not yet complete or abandoned; allocates
// nothing once grown to the most ever in flight. Nodes are never removed and
// a split keeps the id of the node where a chain ends, so the leaf stays the
// node LPRadixCache's find_node would give at completion, without hashing or
// walking the prompt again.
class RoutedRequests {
 public:
  struct Routed {
    uint32_t leaf = PrebleTree::kNone;  // kNone: no full block
    uint32_t replica = 0;
    sim::Time first_token = sim::kNever;
  };
  void Route(uint64_t id, uint32_t leaf, uint32_t replica) {
    At(id) = {leaf, replica, sim::kNever};
  }
  void FirstToken(uint64_t id, sim::Time time) { At(id).first_token = time; }
  size_t size() const { return routed_.size() - free_.size(); }
  // The request's record, now forgotten: {kNone, 0, kNever} if none.
  Routed Take(uint64_t id) {
    const uint32_t slot = index_.Find(Key(id));
    if (slot == models::HashIndex::kAbsent) return {};
    index_.Erase(Key(id));
    free_.push_back(slot);
    return routed_[slot];
  }

 private:
  static uint64_t Key(uint64_t id) { return id + 1; }  // non-zero: ids never reach 2^64 − 1
  Routed& At(uint64_t id) {
    if (const uint32_t slot = index_.Find(Key(id)); slot != models::HashIndex::kAbsent) {
      return routed_[slot];
    }
    const uint32_t slot = sim::TakeSlot(routed_, free_);
    index_.Insert(Key(id), slot);
    return routed_[slot] = {};
  }
  models::HashIndex index_;
  std::vector<Routed> routed_;
  std::vector<uint32_t> free_;
};

class PreblePolicy : public Policy {
 public:
  PreblePolicy(const Params& params, const PolicyContext& ctx)
      : gpus_(ctx.num_replicas),
        cost_(ctx),
        histogram_(tree_, cost_, ctx.num_replicas, sim::FromSeconds(params.Get("window_s")),
                   ctx.block_size_tokens),
        detector_(sim::FromSeconds(params.Get("window_s")), params.Get("overload_factor")),
        request_decode_(params.Get("max_new_tokens") == 0),
        unknown_decode_(static_cast<uint32_t>(params.Get("unknown_decode_tokens"))),
        rebalancing_(params.Get("rebalancing") == 0),
        rebalance_after_(params.Get("rebalance_after_per_replica") * ctx.num_replicas),
        high_load_(params.Get("high_load_threshold")),
        chain_length_(static_cast<uint32_t>(params.Get("chain_length"))) {
    const size_t samples = static_cast<size_t>(params.Get("tpot_samples"));
    for (uint32_t g = 0; g < gpus_; ++g) {
      tpot_.emplace_back(samples, params.Get("initial_tpot_s"));
      ranked_.push_back(g);
    }
  }

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    // A request routed again without a word of its first routing: that
    // routing's references go (OnNotDispatched normally says so first).
    DropReferences(requests_.Take(request.id));
    splits_.clear();
    const uint32_t leaf = tree_.Insert(request.hashes, &splits_);
    for (const PrebleTree::Split& split : splits_) {
      if (tree_.large(split.parent) && !tree_.large(split.child)) {
        for (uint32_t g : tree_.allocation(split.child))
          detector_.Rename(split.child, split.parent, g);
      }
      histogram_.OnSplit(split);
    }
    ++routed_;
    if (leaf == PrebleTree::kRoot) {  // no full block: nothing to track
      const uint32_t pick = Cheapest(view, {});
      requests_.Route(request.id, PrebleTree::kNone, pick);
      Explain("no_prefix", Cost(pick));
      return pick;
    }
    uint32_t important = leaf, steps = 0;
    for (; !tree_.large(important); ++steps) important = tree_.parent(important);

    // exploit: the cached prefix outweighs the new part, so the cheapest
    // replica holding it; explore: the cheapest replica anywhere. Score: the
    // chosen replica's load cost (Cost, calculate_min_load_cost's measure).
    uint32_t pick;
    if (tree_.blocks(leaf) < tree_.context_so_far(leaf)) {
      pick = Exploit(leaf, view);
      ++exploits_;
      Explain("exploit", Cost(pick));
    } else {
      pick = Cheapest(view, {});
      Explain("explore", Cost(pick));
    }
    histogram_.AllocatePath(leaf, pick);
    histogram_.AddRefsOnPath(leaf, pick, +1);
    requests_.Route(request.id, leaf, pick);
    histogram_.Record(view.now, important, leaf,
                      request_decode_ ? request.output_tokens : unknown_decode_);
    if (rebalancing_ && steps < chain_length_) Rebalance(view);
    return pick;
  }

  // Rejected, or lost before its queue: its references go; a retry routes
  // it again.
  void OnNotDispatched(const models::Request& request, uint32_t, sim::Time) override {
    DropReferences(requests_.Take(request.id));
  }

  void OnFirstToken(const models::Request& request, uint32_t, sim::Time now) override {
    requests_.FirstToken(request.id, now);
  }

  // finish_request: the TTFT detector, the references and the TPOT record.
  void OnComplete(const models::Request& request, uint32_t replica, sim::Time now) override {
    const RoutedRequests::Routed routed = requests_.Take(request.id);
    const sim::Time first = routed.first_token;
    if (routed.leaf != PrebleTree::kNone && first != sim::kNever) {
      detector_.Add(now, Important(routed.leaf), replica, sim::ToSeconds(first - request.arrival));
    }
    DropReferences(routed);
    if (first != sim::kNever && request.output_tokens > 1 && now > first) {
      tpot_[replica].Push(sim::ToSeconds(now - first) /
                          static_cast<double>(request.output_tokens - 1));
    }
  }

  std::vector<std::pair<std::string, double>> Stats() const override {
    return {{"preble_exploit_share",
             routed_ > 0 ? static_cast<double>(exploits_) / static_cast<double>(routed_) : 0},
            {"preble_moves", static_cast<double>(moves_)},
            {"preble_replications", static_cast<double>(replications_)},
            {"preble_mean_tpot_s", MeanTpot()},
            // Routed and neither complete nor abandoned: the unfinished ones.
            {"preble_tracked_requests", static_cast<double>(requests_.size())}};
  }

 private:
  struct Candidate {
    double cost;
    uint32_t node;
  };

  // The replicas' median TPOTs at the end, averaged: what decoding is priced at.
  double MeanTpot() const {
    double sum = 0;
    for (const MedianWindow& w : tpot_) sum += w.Median();
    return tpot_.empty() ? 0 : sum / static_cast<double>(tpot_.size());
  }

  uint32_t Important(uint32_t node) const {
    while (!tree_.large(node)) node = tree_.parent(node);
    return node;
  }

  // Undoes a routing's references, where they were counted.
  void DropReferences(const RoutedRequests::Routed& routed) {
    if (routed.leaf != PrebleTree::kNone) histogram_.AddRefsOnPath(routed.leaf, routed.replica, -1);
  }

  double Cost(uint32_t g) const { return histogram_.Cost(g, tpot_[g].Median()); }

  // calculate_min_load_cost: the first least-cost healthy replica among
  // `gpus` (ascending), or among all replicas when `gpus` is empty or has
  // none healthy.
  uint32_t Cheapest(const ClusterView& view, std::span<const uint32_t> gpus) const {
    uint32_t best = PrebleTree::kNone;
    double best_cost = 0;
    auto consider = [&](uint32_t g) {
      if (!view.healthy(g)) return;
      const double c = Cost(g);
      if (best == PrebleTree::kNone || c < best_cost) {
        best = g;
        best_cost = c;
      }
    };
    if (gpus.empty()) {
      for (uint32_t g = 0; g < view.size(); ++g) consider(g);
    } else {
      for (uint32_t g : gpus) consider(g);
    }
    if (best == PrebleTree::kNone && !gpus.empty()) return Cheapest(view, {});
    return best;
  }

  // get_parent_gpu_allocation: the allocation of the nearest allocated
  // ancestor-or-self; the root's is every replica ever routed to.
  uint32_t Exploit(uint32_t leaf, const ClusterView& view) const {
    uint32_t n = leaf;
    while (tree_.allocation(n).empty() && n != PrebleTree::kRoot) n = tree_.parent(n);
    return Cheapest(view, tree_.allocation(n));
  }

  // Policy::Rebalance (queue moves) stays the base's no-op; this overload is
  // Preble's own load rebalancing (clang's -Woverloaded-virtual wants it said).
  using Policy::Rebalance;
  void Rebalance(const ClusterView& view) {
    if (static_cast<double>(routed_) < rebalance_after_) return;
    order_.clear();
    for (uint32_t g : ranked_) {
      if (view.healthy(g)) order_.push_back({histogram_.Cost(g, tpot_[g].Median(), true), g});
    }
    // The first comparison below is of the costliest with the cheapest; when
    // it stops the loop, nothing is sorted.
    if (order_.size() < 2) return;
    const auto [cheapest, costliest] =
        std::minmax_element(order_.begin(), order_.end(),
                            [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
    if (costliest->cost < high_load_ * cheapest->cost) return;
    SortCostliestFirst(view);
    for (size_t first = 0; first + 1 < order_.size(); ++first) {
      double& large_cost = order_[first].cost;
      double& small_cost = order_.back().cost;
      const uint32_t large = order_[first].node, small = order_.back().node;
      if (large_cost < high_load_ * small_cost) return;
      const double tpot = tpot_[large].Median();
      candidates_.clear();
      for (uint32_t n : histogram_.BusyNodesOn(large)) {  // each with Count ≥ 2
        if (tree_.large(n)) candidates_.push_back({0, n});
      }
      if (candidates_.size() == 1) {
        const uint32_t n = candidates_[0].node;
        if (!tree_.allocated(n, small) && detector_.Overloaded(n, large, view.now)) {
          const double half = histogram_.NodeCost(n, large, tpot) / 2;
          large_cost -= half;
          small_cost += half;
          histogram_.Replicate(n, small);
          detector_.Erase(n, large);
          ++replications_;
        }
        continue;
      }
      for (Candidate& c : candidates_) c.cost = histogram_.NodeCost(c.node, large, tpot);
      std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
        return a.cost != b.cost ? a.cost < b.cost : a.node < b.node;
      });
      for (const Candidate& c : candidates_) {
        if (large_cost - c.cost < small_cost + c.cost) break;
        large_cost -= c.cost;
        small_cost += c.cost;
        histogram_.MoveSubtree(c.node, small);
        ++moves_;
        if (large_cost < high_load_ * small_cost) break;
      }
    }
  }

  // Sorts order_ costliest first, equal costs in replica order (the order a
  // stable sort of the replicas would give). Costs move little from one
  // request to the next, so order_ starts in the last call's order and an
  // insertion sort makes a few moves where a full sort compares every pair;
  // past a budget of moves, a full sort finishes (the order is the same).
  void SortCostliestFirst(const ClusterView& view) {
    auto before = [](const Candidate& a, const Candidate& b) {
      return a.cost != b.cost ? a.cost > b.cost : a.node < b.node;
    };
    size_t budget = 8 * order_.size();
    for (size_t i = 1; i < order_.size(); ++i) {
      const Candidate c = order_[i];
      size_t j = i;
      for (; j > 0 && before(c, order_[j - 1]) && budget > 0; --j, --budget) {
        order_[j] = order_[j - 1];
      }
      order_[j] = c;
      if (budget == 0) {
        std::sort(order_.begin(), order_.end(), before);
        break;
      }
    }
    // The healthy replicas' places in ranked_ take the new order.
    size_t next = 0;  // order_ holds exactly the healthy ones
    for (uint32_t& g : ranked_) {
      if (view.healthy(g)) g = order_[next++].node;
    }
  }

  uint32_t gpus_;
  PrebleTree tree_;
  CostEstimator cost_;
  PrebleHistogram histogram_;
  TtftOverloadDetector detector_;
  std::vector<MedianWindow> tpot_;  // per replica, seconds
  bool request_decode_;
  uint32_t unknown_decode_;
  bool rebalancing_;
  double rebalance_after_;
  double high_load_;
  uint32_t chain_length_;

  uint64_t routed_ = 0, exploits_ = 0, moves_ = 0, replications_ = 0;
  RoutedRequests requests_;
  std::vector<PrebleTree::Split> splits_;
  std::vector<uint32_t> ranked_;               // every replica, in the last order_'s order
  std::vector<Candidate> order_, candidates_;  // scratch
};

}  // namespace

PolicyInfo PreblePolicyInfo() {
  return {"preble",
          "Preble: global prefix tree, E2 exploit/explore on a windowed prefill+decode cost, "
          "rebalancing and hot-prefix replication",
          {{"window_s", 180, "window H of the histogram and of the TTFT detector, s", false, 1},
           {"tpot_samples", 200, "TPOT samples per replica whose median prices decoding", true, 1},
           {"initial_tpot_s", 0.15, "TPOT every replica starts with, s", false, 0},
           {"max_new_tokens",
            0,
            "decode length per request: its output length (Preble's benchmarks pass it as "
            "max_new_tokens) or unknown",
            false,
            0,
            {"request", "unknown"}},
           {"unknown_decode_tokens", 45, "decode length assumed when unknown, tokens", true, 1},
           {"rebalancing", 0, "rebalancing and hot-prefix replication", false, 0, {"on", "off"}},
           {"rebalance_after_per_replica", 50,
            "rebalancing starts after this many routed requests per replica", false, 0},
           {"high_load_threshold", 1.5,
            "rebalance while the costliest replica's cost is at least this times the cheapest's",
            false, 0},
           {"chain_length", 3,
            "rebalance only after requests whose leaf is fewer than this many nodes below its "
            "important node",
            true, 1},
           {"overload_factor", 2,
            "TTFT overload: mean of the window's second half at least this times the first's",
            false, 0}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<PreblePolicy>(params, ctx);
          },
          "",
          {{"exploit", "cached prefix longer than the new part: the cheapest replica holding it"},
           {"explore", "the cheapest replica anywhere"},
           {"no_prefix", "no full block: the cheapest replica anywhere"}},
          "the chosen replica's load cost"};
}

}  // namespace kvroute::policies
