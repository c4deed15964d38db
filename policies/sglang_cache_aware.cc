// sglang_cache_aware: SGLang router's cache_aware policy (sgl-router
// src/policies/cache_aware.rs, tree in tree.rs; policies.md §1).
//   if max(load) - min(load) > balance_abs_threshold and
//      max(load) > min(load) * balance_rel_threshold:   (over all workers)
//        pick the first least-loaded healthy worker     (shortest queue)
//   else (matched, tenant) = prefix match of the prompt in the tree;
//        rate = matched / prompt; pick tenant if rate > cache_threshold,
//        else the tenant owning the smallest share of the tree;
//        if that worker is unhealthy, the first healthy one.
//   The pick's prompt is inserted into the tree in both branches.
// load is the router's own count of in-flight requests per worker. The tree
// is block_radix_tree.h: it measures prompts in blocks of chained hashes where
// SGLang measures characters, so a prompt shorter than one block never matches
// and max_tree_size counts blocks. Defaults are CacheAwareConfig::default()
// (mod.rs); the Python launcher's are 0.3, 64, 1.5, 120 s and 2^26
// (router_args.py). With `cache_state: exact` the match is read from the
// replicas' real caches (the deepest cached prefix, its owner; through
// cluster.kv_events when the scenario delays or loses cache events) and the
// smallest tenant is the replica with the least KV in use.
#include <algorithm>
#include <optional>
#include <vector>

#include "policies/block_radix_tree.h"
#include "policies/builtin_policies.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

class SglangCacheAwarePolicy : public Policy {
 public:
  SglangCacheAwarePolicy(const Params& params, const PolicyContext& ctx)
      : cache_threshold_(params.Get("cache_threshold")),
        abs_threshold_(params.Get("balance_abs_threshold")),
        rel_threshold_(params.Get("balance_rel_threshold")),
        eviction_interval_(sim::FromSeconds(params.Get("eviction_interval_s"))),
        max_tree_blocks_(static_cast<uint32_t>(params.Get("max_tree_size"))),
        in_flight_(ctx.num_replicas, 0),
        cached_(ctx.num_replicas) {
    if (params.Get("cache_state") == 0) tree_.emplace(ctx.num_replicas);
  }

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    uint32_t pick;
    if (Imbalanced()) {
      // least_load: the imbalanced branch; score: the pick's in-flight count.
      pick = ShortestQueue(view);
      Explain("least_load", static_cast<double>(in_flight_[pick]));
    } else {
      pick = ByCache(request, view);
    }
    if (tree_) tree_->Insert(request.hashes.prompt(), pick, view.now);
    return pick;
  }

  void OnDispatch(const models::Request&, uint32_t replica, sim::Time) override {
    ++in_flight_[replica];
  }
  void OnComplete(const models::Request&, uint32_t replica, sim::Time) override {
    if (in_flight_[replica] > 0) --in_flight_[replica];
  }

  sim::Time ControlInterval() const override { return tree_ ? eviction_interval_ : 0; }
  void OnControlTick(const ClusterView&) override { tree_->EvictBySize(max_tree_blocks_); }

 private:
  bool Imbalanced() const {
    auto [lo, hi] = std::minmax_element(in_flight_.begin(), in_flight_.end());
    double max = static_cast<double>(*hi), min = static_cast<double>(*lo);
    return max - min > abs_threshold_ && max > min * rel_threshold_;
  }

  uint32_t ShortestQueue(const ClusterView& view) const {
    uint32_t best = UINT32_MAX;
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (view.healthy(r) && (best == UINT32_MAX || in_flight_[r] < in_flight_[best])) best = r;
    }
    return best;
  }

  uint32_t ByCache(const models::Request& request, const ClusterView& view) {
    const auto& chain = request.hashes.prompt();
    BlockRadixTree::Match match =
        tree_ ? tree_->PrefixMatch(chain, view.now) : ExactMatch(request, view);
    double rate =
        chain.empty() ? 0.0 : static_cast<double>(match.blocks) / static_cast<double>(chain.size());
    const bool matched = rate > cache_threshold_ && match.tenant != BlockRadixTree::kNoTenant;
    uint32_t pick = matched ? match.tenant : Smallest(view);
    // prefix_match: the match rate beat cache_threshold; smallest_cache:
    // it did not, so the smallest tree (or least KV use); fallback: that
    // replica was unhealthy. Score: the match rate, matched / prompt blocks.
    if (view.healthy(pick)) {
      Explain(matched ? "prefix_match" : "smallest_cache", rate);
      return pick;
    }
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (view.healthy(r)) {
        Explain("fallback", rate);
        return r;
      }
    }
    return pick;  // unreachable: Route requires a healthy replica
  }

  // The deepest prefix cached on any replica; among replicas holding that
  // much, the one first in a per-prompt hashed order, as the tree's owner.
  BlockRadixTree::Match ExactMatch(const models::Request& request, const ClusterView& view) {
    BlockRadixTree::Match match;
    if (view.cache == nullptr || request.hashes.prompt().empty()) return match;
    uint64_t best_rank = 0;
    view.cache->CachedPrefixBlocksAll(request.hashes.prompt(), cached_);
    for (uint32_t r = 0; r < view.size(); ++r) {
      const uint32_t blocks = cached_[r];
      if (blocks == 0) continue;
      uint64_t rank = sim::Combine(request.hashes.prompt()[blocks - 1], r);
      if (blocks > match.blocks || (blocks == match.blocks && rank < best_rank)) {
        match = {blocks, r};
        best_rank = rank;
      }
    }
    return match;
  }

  uint32_t Smallest(const ClusterView& view) const {
    if (tree_) return tree_->SmallestTenant();
    uint32_t best = 0;
    for (uint32_t r = 1; r < view.size(); ++r) {
      if (view.replicas[r].kv_utilization < view.replicas[best].kv_utilization) best = r;
    }
    return best;
  }

  double cache_threshold_;
  double abs_threshold_;
  double rel_threshold_;
  sim::Time eviction_interval_;
  uint32_t max_tree_blocks_;
  std::vector<uint64_t> in_flight_;
  std::vector<uint32_t> cached_;  // per replica, exact cached prefix blocks (cache_state: exact)
  std::optional<BlockRadixTree> tree_;  // only with cache_state: router
};

}  // namespace

PolicyInfo SglangCacheAwarePolicyInfo() {
  return {
      "sglang_cache_aware",
      "SGLang cache_aware: prefix tree from routing history, shortest queue when imbalanced",
      {{"cache_threshold", 0.5, "matched share of the prompt's blocks to follow the match", false,
        0},
       {"balance_abs_threshold", 32, "in-flight spread (max - min) that counts as imbalance", false,
        0},
       {"balance_rel_threshold", 1.1, "max/min in-flight ratio that counts as imbalance", false, 0},
       {"eviction_interval_s", 30, "period of tree eviction, s; 0 never evicts", false, 0},
       {"max_tree_size", 10000, "blocks each worker may own in the tree after eviction", true, 1},
       {"cache_state",
        0,
        "the router's own tree, or the replicas' exact caches",
        false,
        0,
        {"router", "exact"}}},
      [](const Params& params, const PolicyContext& ctx) {
        return std::make_unique<SglangCacheAwarePolicy>(params, ctx);
      },
      "with cache_state: exact",
      {{"prefix_match", "match rate above cache_threshold: the replica holding it"},
       {"smallest_cache", "match rate too low: the smallest cache"},
       {"least_load", "load imbalanced: the fewest in flight"},
       {"fallback", "the chosen replica was unhealthy: the first healthy one"}},
      "the match rate (matched / prompt blocks); in-flight requests for least_load"};
}

}  // namespace kvroute::policies
