// dualmap: DualMap (Yuan et al., "DualMap: Enabling Both Cache Affinity and
// Load Balancing for Distributed LLM Serving", arXiv 2602.06502, ICLR 2026,
// §3.2-3.4; policies.md §6; the CacheRoute paper's DualMap baseline, seed 003
// §4-5.1). Where the paper leaves a detail open, the authors' public code
// (A-zhudong/DualMap, scheduler/utils/double_hash_global_scheduler_utils.py)
// decides it.
//   key    = the prompt's prefix at an adaptive length (prefix_hotness.h)
//   c1, c2 = its successors on two independent hash rings (dual_hash_rings.h)
//   pick   = the candidate with the longer cached prefix; on equal reuse the
//            one owing fewer tokens (prefill + decode), then c1
//   SLO    = predicted TTFT(r, c) = (prefill tokens pending on c + r's uncached
//            prompt tokens on c) x the cost model's full-batch seconds per
//            token; if the pick's exceeds ttft_slo_s, the other candidate is
//            taken when its prediction is lower (the public code's minimum-TTFT
//            fallback; with two candidates, "the other one" whenever it helps)
//   hotspot rebalancing, when both candidates are over the SLO after the
//            dispatch (the other one without this request, as the public code
//            checks): one batch pass over the queued, never scheduled requests
//            at the tail of each candidate's queue, moving r from i to its
//            other candidate j iff B = TTFT(r,i) - TTFT(r,j) > 0 and
//            TTFT(r,j) < SLO, highest B first; TTFT(r,i) counts the prefill
//            queued ahead of r, TTFT(r,j) all of j's plus the moves made to it
//            so far in the pass. No recursion: moved requests are not revisited.
// Cache reuse comes from the router's own routing history (the blocks it sent
// to each replica, router_prefix_index.h, sized as a replica's KV pool), or
// with `cache_state: exact` from the replicas' real caches. In router mode a
// queued request's own blocks count as cached on the replica it waits on, as
// the router cannot tell them from its predecessors'.
#include <algorithm>
#include <optional>
#include <vector>

#include "policies/builtin_policies.h"
#include "policies/cost_estimate.h"
#include "policies/dual_hash_rings.h"
#include "policies/prefix_hotness.h"
#include "policies/router_prefix_index.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

PrefixHotness::Config HotnessConfig(const Params& params, const PolicyContext& ctx) {
  const double n = static_cast<double>(std::max<uint32_t>(1, ctx.num_replicas));
  const auto prefix_tokens = static_cast<uint32_t>(params.Get("prefix_block_tokens"));
  return {.blocks_per_level =
              std::max<uint32_t>(1, prefix_tokens / static_cast<uint32_t>(ctx.block_size_tokens)),
          .extend_share = params.Get("extend_factor") / n,
          .shrink_share = params.Get("shrink_factor") / n,
          .window = sim::FromSeconds(params.Get("hotness_window_s"))};
}

class DualMapPolicy : public Policy {
 public:
  DualMapPolicy(const Params& params, const PolicyContext& ctx)
      : rings_(ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes"))),
        hotness_(HotnessConfig(params, ctx)),
        block_(static_cast<uint32_t>(ctx.block_size_tokens)),
        rebalance_(params.Get("rebalance") == 0),
        scan_(static_cast<uint32_t>(params.Get("rebalance_scan"))),
        pending_(ctx.num_replicas, 0) {
    CostEstimator estimator(ctx);
    slo_tokens_ = params.Get("ttft_slo_s") / estimator.prefill_seconds_per_token();
    if (params.Get("cache_state") == 0) {
      index_.emplace(
          ctx.num_replicas,
          ctx.kv_blocks_per_replica > 0 ? ctx.kv_blocks_per_replica : kDefaultIndexBlocksPerReplica,
          0);
    }
  }

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    const PrefixHotness::Key key = hotness_.Observe(request.hashes, view.now);
    key_levels_ += key.levels;
    ++routed_;
    const DualHashRings::Candidates c = rings_.Pick(KeyHash(key, request), view);
    // single_candidate: both rings gave one replica; otherwise of the two,
    // prefix_match (more cached blocks), least_load (as many, fewer
    // outstanding tokens) or slo_switch (the other, as the first would miss
    // the SLO). Score: the pick's predicted tokens, the SLO's measure.
    if (c.first == c.second) {
      Explain("single_candidate");
      return c.first;
    }

    const uint32_t hit1 = HitBlocks(c.first, request, view);
    const uint32_t hit2 = HitBlocks(c.second, request, view);
    uint32_t pick = c.first, other = c.second;
    if (hit2 > hit1 || (hit2 == hit1 && view.replicas[c.second].outstanding_tokens() <
                                            view.replicas[c.first].outstanding_tokens())) {
      std::swap(pick, other);
    }
    const char* reason = hit1 != hit2 ? "prefix_match" : "least_load";
    double pick_tokens = PredictedTokens(view, pick, request, pick == c.first ? hit1 : hit2);
    const double other_tokens =
        PredictedTokens(view, other, request, pick == c.first ? hit2 : hit1);
    if (pick_tokens > slo_tokens_ && other_tokens < pick_tokens) {
      std::swap(pick, other);
      pick_tokens = other_tokens;
      ++slo_switches_;
      reason = "slo_switch";
    }
    Explain(reason, pick_tokens);
    if (rebalance_ && pick_tokens > slo_tokens_ &&
        static_cast<double>(view.replicas[other].prefill_tokens) > slo_tokens_) {
      hot_ = {pick, other};
    }
    return pick;
  }

  void Rebalance(const ClusterView& view, std::vector<QueueMove>* moves) override {
    if (!hot_ || view.queues == nullptr) {
      hot_.reset();
      return;
    }
    const auto [a, b] = *hot_;
    hot_.reset();
    // A move needs a target under the SLO; in a cluster overloaded
    // everywhere there is none, and nothing to scan.
    bool any_target = false;
    for (uint32_t r = 0; r < view.size() && !any_target; ++r) {
      any_target =
          view.healthy(r) && static_cast<double>(view.replicas[r].prefill_tokens) + 1 < slo_tokens_;
    }
    if (!any_target) return;
    for (uint32_t r = 0; r < view.size(); ++r) pending_[r] = view.replicas[r].prefill_tokens;
    candidates_.clear();
    CollectCandidates(a, view);
    CollectCandidates(b, view);
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& x, const Candidate& y) {
      return x.benefit != y.benefit ? x.benefit > y.benefit : x.request_id < y.request_id;
    });
    for (const Candidate& m : candidates_) {
      const double to_tokens = static_cast<double>(pending_[m.to]) + m.uncached_to;
      if (m.from_tokens - to_tokens <= 0 || to_tokens >= slo_tokens_) continue;
      moves->push_back(QueueMove{m.request_id, m.from, m.to});
      pending_[m.to] += m.prompt_tokens;
      pending_[m.from] -= m.prompt_tokens;
      ++moves_;
    }
  }

  void OnDispatch(const models::Request& request, uint32_t replica, sim::Time now) override {
    if (index_) index_->Record(replica, request.hashes, now);
  }

  std::vector<std::pair<std::string, double>> Stats() const override {
    return {{"dualmap_slo_switches", static_cast<double>(slo_switches_)},
            {"dualmap_rebalance_moves", static_cast<double>(moves_)},
            {"dualmap_mean_key_blocks",
             routed_ > 0 ? static_cast<double>(key_levels_) / static_cast<double>(routed_) : 0}};
  }

 private:
  struct Candidate {
    double benefit;      // B, in prompt tokens
    double from_tokens;  // TTFT(r, from) in tokens
    double uncached_to;  // r's uncached prompt tokens on `to`
    int64_t prompt_tokens;
    uint64_t request_id;
    uint32_t from;
    uint32_t to;
  };

  // A prompt with no full KV block has no prefix to key on; its routing key
  // (business, tenant or conversation) stands in.
  static uint64_t KeyHash(const PrefixHotness::Key& key, const models::Request& request) {
    return key.levels > 0 ? key.hash : sim::Mix64(request.key);
  }

  uint32_t HitBlocks(uint32_t replica, const models::Request& request,
                     const ClusterView& view) const {
    if (index_) return index_->Depth(replica, request.hashes, view.now);
    if (view.cache == nullptr) return 0;
    return view.cache->CachedPrefixBlocks(replica, request.hashes.prompt());
  }

  // Prompt tokens left to compute after the cached prefix; as the replica
  // does, the last token is always computed.
  double Uncached(const models::Request& request, uint32_t hit_blocks) const {
    if (request.prompt_tokens == 0) return 0;
    uint64_t hit = std::min<uint64_t>(uint64_t{hit_blocks} * block_, request.prompt_tokens - 1);
    return static_cast<double>(request.prompt_tokens - hit);
  }

  double PredictedTokens(const ClusterView& view, uint32_t replica, const models::Request& request,
                         uint32_t hit_blocks) const {
    return static_cast<double>(view.replicas[replica].prefill_tokens) +
           Uncached(request, hit_blocks);
  }

  // The last `scan_` movable requests queued on `from`, each with its B
  // against its other candidate where the move qualifies. The tail is where B
  // is largest: TTFT(r, from) grows with the work queued ahead of r.
  void CollectCandidates(uint32_t from, const ClusterView& view) {
    if (!view.healthy(from)) return;
    const QueueView& queues = *view.queues;
    int64_t behind = 0;  // prefill tokens queued at and behind the current request
    uint32_t scanned = 0;
    for (uint32_t i = queues.QueuedCount(from); i-- > 0 && scanned < scan_;) {
      const models::Request* r = queues.Queued(from, i);
      if (r == nullptr) continue;  // scheduled before: it stays
      ++scanned;
      behind += r->prompt_tokens;  // a never scheduled request owes its whole prompt
      const DualHashRings::Candidates c = rings_.Pick(KeyHash(hotness_.Peek(r->hashes), *r), view);
      const uint32_t to = c.first == from ? c.second : c.second == from ? c.first : from;
      if (to == from) continue;  // keyed elsewhere since it was queued here
      const double ahead = static_cast<double>(view.replicas[from].prefill_tokens - behind);
      const double to_pending = static_cast<double>(view.replicas[to].prefill_tokens);
      // Bounds first: the cache estimates cost a walk of the prompt's blocks.
      if (to_pending + 1 >= slo_tokens_ || ahead + r->prompt_tokens <= to_pending + 1) continue;
      const double from_tokens = ahead + Uncached(*r, HitBlocks(from, *r, view));
      const double uncached_to = Uncached(*r, HitBlocks(to, *r, view));
      const double to_tokens = to_pending + uncached_to;
      if (from_tokens - to_tokens <= 0 || to_tokens >= slo_tokens_) continue;
      candidates_.push_back(Candidate{from_tokens - to_tokens, from_tokens, uncached_to,
                                      r->prompt_tokens, r->id, from, to});
    }
  }

  DualHashRings rings_;
  PrefixHotness hotness_;
  uint32_t block_;
  bool rebalance_;
  uint32_t scan_;
  double slo_tokens_ = 0;                   // prefill tokens a replica clears within the TTFT SLO
  std::optional<RouterPrefixIndex> index_;  // only with cache_state: router
  std::optional<std::pair<uint32_t, uint32_t>> hot_;  // both over the SLO at the last Route
  std::vector<int64_t> pending_;                      // per replica, during a pass
  std::vector<Candidate> candidates_;
  uint64_t slo_switches_ = 0;
  uint64_t moves_ = 0;
  uint64_t key_levels_ = 0;
  uint64_t routed_ = 0;
};

}  // namespace

PolicyInfo DualMapPolicyInfo() {
  return {
      "dualmap",
      "two hash-ring candidates per prompt prefix: more cache reuse, SLO switch, hotspot "
      "rebalancing (DualMap)",
      {{"prefix_block_tokens", 512, "tokens per prefix block of the adaptive key", true, 1},
       {"extend_factor", 2, "split a prefix above extend_factor/n of recent traffic", false, 0},
       {"shrink_factor", 1, "merge it back below shrink_factor/n", false, 0},
       {"hotness_window_s", 60, "decay time constant of the traffic shares, s", false, 1e-3},
       {"virtual_nodes", 100, "points per replica on each hash ring", true, 1},
       {"ttft_slo_s", 5, "TTFT SLO of the switch and of rebalancing, s", false, 1e-3},
       {"rebalance", 0, "hotspot rebalancing of queued requests", false, 0, {"on", "off"}},
       {"rebalance_scan", 64, "queued requests examined per overloaded candidate", true, 1},
       {"cache_state",
        0,
        "cache reuse from the router's own routing history, or the replicas' exact caches",
        false,
        0,
        {"router", "exact"}}},
      [](const Params& params, const PolicyContext& ctx) -> std::unique_ptr<Policy> {
        if (params.Get("shrink_factor") > params.Get("extend_factor")) {
          throw PolicyConfigError("policy 'dualmap': shrink_factor must not exceed extend_factor");
        }
        return std::make_unique<DualMapPolicy>(params, ctx);
      },
      "",
      {{"single_candidate", "both rings gave one replica"},
       {"prefix_match", "of two candidates, more cached blocks"},
       {"least_load", "of two candidates with as many cached blocks, fewer outstanding tokens"},
       {"slo_switch", "the other candidate, as the first would miss the SLO"}},
      "the chosen replica's predicted tokens, the SLO's measure (none for single_candidate)"};
}

}  // namespace kvroute::policies
