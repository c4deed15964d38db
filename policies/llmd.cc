// llmd: the llm-d inference scheduler's default profile (pkg/epp/config/loader
// defaults.go; policies.md §3): total_e = Σ weight_s · clamp(score_s(e), 0, 1)
// over the prefix-cache (3), queue (2) and kv-cache-utilization (2) scorers,
// plus the optional load-aware scorer (weight 0 by default; the "estimate mode"
// sample config is prefix 1 + load-aware 1); the max-score picker breaks ties
// uniformly at random. The prefix score is matched blocks / request blocks
// (at most 256): by default from the approximate index of the router's own
// decisions (one LRU per pod of the pod's KV size, autoTune), or with
// `prefix_cache: precise` from the engines' caches (LongestPrefixScorer), as
// their KV events tell them (cluster.kv_events). The precise index knows each
// block's tier: a block only host memory holds (cluster.kv_tiers) counts
// `host_tier_weight`, llm-d's default weight of the "cpu" medium, and a block
// only the local SSD below it holds `storage_tier_weight`, that of the
// "storage" medium (vLLM's tiered offload to disk) (llm-d-kv-cache
// pkg/kvcache/backend.go DefaultKVCacheBackendConfig: gpu 1.0, cpu 0.8,
// storage 0.3).
#include <algorithm>
#include <vector>

#include "policies/builtin_policies.h"
#include "policies/llmd_scorers.h"
#include "policies/router_prefix_index.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

constexpr size_t kMaxPrefixBlocks = 256;

class LlmdPolicy : public Policy {
 public:
  LlmdPolicy(const Params& params, const PolicyContext& ctx)
      : prefix_weight_(params.Get("prefix_weight")),
        queue_weight_(params.Get("queue_weight")),
        kv_weight_(params.Get("kv_utilization_weight")),
        load_aware_weight_(params.Get("load_aware_weight")),
        load_aware_threshold_(params.Get("load_aware_threshold")),
        host_weight_(params.Get("host_tier_weight")),
        storage_weight_(params.Get("storage_tier_weight")),
        precise_(params.Get("prefix_cache") == 1),
        index_(precise_ ? 0 : ctx.num_replicas,
               ctx.kv_blocks_per_replica > 0 ? ctx.kv_blocks_per_replica
                                             : kDefaultIndexBlocksPerReplica,
               0),
        rng_(ctx.seed, "policy.llmd"),
        eligible_(ctx.num_replicas),
        queue_(ctx.num_replicas),
        queue_scores_(ctx.num_replicas),
        matched_(ctx.num_replicas),
        weighted_(ctx.num_replicas) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    std::span<const uint64_t> chain(request.hashes.prompt().data(),
                                    std::min(request.hashes.prompt().size(), kMaxPrefixBlocks));
    for (uint32_t e = 0; e < view.size(); ++e) {
      eligible_[e] = view.healthy(e);
      queue_[e] = view.replicas[e].waiting;
    }
    LlmdQueueScores(queue_, eligible_, queue_scores_);
    if (precise_) {
      if (view.cache != nullptr) {
        view.cache->CachedPrefixBlocksAll(chain, matched_);
      } else {
        std::fill(matched_.begin(), matched_.end(), 0);
      }
    } else {
      index_.WalkCounts(chain, view.now, matched_);
    }
    // The prefix run goes on through the blocks only host memory holds, each
    // worth host_tier_weight, then those only the SSD holds, each worth
    // storage_tier_weight (LongestPrefixScorer's tier-weighted sum).
    for (uint32_t e = 0; e < view.size(); ++e) {
      weighted_[e] = matched_[e];
      if (precise_ && view.cache != nullptr && eligible_[e] && matched_[e] < chain.size()) {
        const uint32_t host = view.cache->HostTierBlocks(e, chain, matched_[e]);
        weighted_[e] += host_weight_ * host;
        if (matched_[e] + host < chain.size()) {
          weighted_[e] +=
              storage_weight_ * view.cache->StorageTierBlocks(e, chain, matched_[e] + host);
        }
      }
    }
    uint32_t best = UINT32_MAX, ties = 0;
    double best_score = 0;
    for (uint32_t e = 0; e < view.size(); ++e) {
      if (!eligible_[e]) continue;
      double prefix = chain.empty() ? 0 : weighted_[e] / static_cast<double>(chain.size());
      double kv = 1 - view.replicas[e].kv_utilization;
      double score =
          prefix_weight_ * Clamp(prefix) + queue_weight_ * Clamp(queue_scores_[e]) +
          kv_weight_ * Clamp(kv) +
          load_aware_weight_ * LlmdLoadAwareScore(view.replicas[e].waiting, load_aware_threshold_);
      if (best == UINT32_MAX || score > best_score) {
        best = e;
        best_score = score;
        ties = 1;
      } else if (score == best_score && rng_.UniformInt(++ties) == 0) {
        best = e;
      }
    }
    // prefix_match: the chosen pod matched part of the prompt; load_score:
    // it matched none, so queue and KV scores decided. Score: its weighted
    // score sum (the scheduler's, higher is better).
    Explain(weighted_[best] > 0 ? "prefix_match" : "load_score", best_score);
    return best;
  }

  // PreRequest: the chosen pod's index learns the request's blocks.
  void OnDispatch(const models::Request& request, uint32_t replica, sim::Time now) override {
    if (precise_) return;
    index_.Record(
        replica,
        std::span<const uint64_t>(request.hashes.prompt().data(),
                                  std::min(request.hashes.prompt().size(), kMaxPrefixBlocks)),
        now);
  }

 private:
  static double Clamp(double x) { return std::clamp(x, 0.0, 1.0); }

  double prefix_weight_, queue_weight_, kv_weight_, load_aware_weight_, load_aware_threshold_;
  double host_weight_, storage_weight_;
  bool precise_;
  RouterPrefixIndex index_;
  sim::RandomStream rng_;
  std::vector<uint8_t> eligible_;
  std::vector<double> queue_;
  std::vector<double> queue_scores_;
  std::vector<uint32_t> matched_;
  std::vector<double> weighted_;  // matched blocks, host-only ones weighted
};

}  // namespace

PolicyInfo LlmdPolicyInfo() {
  return {"llmd",
          "max of weighted prefix, queue and KV-utilization scores, random ties (llm-d EPP)",
          {{"prefix_weight", 3, "weight of the prefix-cache scorer", false, 0},
           {"queue_weight", 2, "weight of the queue scorer", false, 0},
           {"kv_utilization_weight", 2, "weight of the kv-cache-utilization scorer", false, 0},
           {"load_aware_weight", 0, "weight of the load-aware scorer", false, 0},
           {"load_aware_threshold", 128, "queue length at which load-aware scores 0", false, 1},
           {"prefix_cache",
            0,
            "prefix index: the router's own (approximate) or the engines'",
            false,
            0,
            {"approximate", "precise"}},
           {"host_tier_weight", 0.8,
            "precise: worth of a prompt block only host memory holds (cluster.kv_tiers), HBM's "
            "being 1 (llm-d's cpu medium weight)",
            false, 0},
           {"storage_tier_weight", 0.3,
            "precise: worth of a prompt block only the local SSD holds (cluster.kv_tiers.ssd_gib) "
            "(llm-d's storage medium weight)",
            false, 0}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<LlmdPolicy>(params, ctx);
          },
          "with prefix_cache: precise",
          {{"prefix_match", "it matched part of the prompt"},
           {"load_score", "no match: queue and KV scores decided"}},
          "the chosen pod's weighted score sum (higher is better)"};
}

}  // namespace kvroute::policies
