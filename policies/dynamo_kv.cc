// dynamo_kv: NVIDIA Dynamo's KV-aware router (ai-dynamo/dynamo, selector.rs
// @ccd1706 and kv_router/sequence.rs; policies.md §2). For each worker w with
// overlap_w cached prefix blocks:
//   prefill_tokens_w = outstanding prefill tokens on w + (ISL - overlap_w·block)
//   decode_blocks_w  = blocks of the router's active sequences on w
//                      + request blocks not already on w
//   logit_w = overlap_score_weight · prefill_tokens_w / block + decode_blocks_w
// then DynamoSelect (least logit at temperature 0, else softmax). Overlap comes
// from the engines' KV events by default (`cache_state: events`: the exact
// caches, or as cluster.kv_events delays and loses the events); with
// `router` the router indexes its own decisions with a TTL (--no-kv-events,
// router_ttl_secs). The tree-size tie-break of the original is replaced by
// the uniform one that follows it.
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "policies/builtin_policies.h"
#include "policies/dynamo_selector.h"
#include "policies/router_prefix_index.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

class DynamoKvPolicy : public Policy {
 public:
  DynamoKvPolicy(const Params& params, const PolicyContext& ctx)
      : weight_(params.Get("overlap_score_weight")),
        temperature_(params.Get("temperature")),
        block_(ctx.block_size_tokens),
        rng_(ctx.seed, "policy.dynamo_kv"),
        active_blocks_(ctx.num_replicas, 0),
        logits_(ctx.num_replicas),
        overlaps_(ctx.num_replicas),
        scratch_(ctx.num_replicas) {
    if (params.Get("cache_state") == 1) {
      index_.emplace(
          ctx.num_replicas,
          ctx.kv_blocks_per_replica > 0 ? ctx.kv_blocks_per_replica : kDefaultIndexBlocksPerReplica,
          sim::FromSeconds(params.Get("router_ttl_s")));
    }
  }

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    const double request_blocks = RequestBlocks(request);
    if (index_) {
      index_->Depths(request.hashes.prompt(), view.now, overlaps_);
    } else if (view.cache != nullptr) {
      view.cache->CachedPrefixBlocksAll(request.hashes.prompt(), overlaps_);
    } else {
      std::fill(overlaps_.begin(), overlaps_.end(), 0);
    }
    for (uint32_t w = 0; w < view.size(); ++w) {
      if (!view.healthy(w)) {
        logits_[w] = std::numeric_limits<double>::infinity();
        continue;
      }
      const double overlap = overlaps_[w];
      double prefill_tokens = static_cast<double>(view.replicas[w].prefill_tokens) +
                              (request.prompt_tokens - overlap * block_);
      double decode_blocks = static_cast<double>(active_blocks_[w]) + (request_blocks - overlap);
      logits_[w] = weight_ * prefill_tokens / block_ + decode_blocks;
    }
    // prefix_match: the chosen worker holds part of the prompt; no_overlap:
    // it holds none. Score: its logit (selector.rs), lower is better.
    const uint32_t pick = DynamoSelect(logits_, temperature_, rng_, scratch_);
    Explain(overlaps_[pick] > 0 ? "prefix_match" : "no_overlap", logits_[pick]);
    return pick;
  }

  void OnDispatch(const models::Request& request, uint32_t replica, sim::Time now) override {
    active_blocks_[replica] += static_cast<uint64_t>(RequestBlocks(request));
    if (index_) index_->Record(replica, request.hashes.prompt(), now);
  }
  void OnComplete(const models::Request& request, uint32_t replica, sim::Time) override {
    uint64_t blocks = static_cast<uint64_t>(RequestBlocks(request));
    active_blocks_[replica] -= std::min(active_blocks_[replica], blocks);
  }

 private:
  double RequestBlocks(const models::Request& request) const {
    return static_cast<double>((request.prompt_tokens + block_ - 1) / block_);
  }

  double weight_;
  double temperature_;
  uint32_t block_;
  sim::RandomStream rng_;
  std::optional<RouterPrefixIndex> index_;  // only with cache_state: router
  std::vector<uint64_t> active_blocks_;
  std::vector<double> logits_;
  std::vector<uint32_t> overlaps_;  // per worker: cached prefix blocks of this request
  std::vector<double> scratch_;
};

}  // namespace

PolicyInfo DynamoKvPolicyInfo() {
  return {
      "dynamo_kv",
      "least (weight*prefill blocks + decode blocks), softmax when temperature > 0 (Dynamo)",
      {{"overlap_score_weight", 1, "weight of the prefill term", false, 0},
       {"temperature", 0, "router_temperature; 0 picks the least logit", false, 0},
       {"cache_state",
        0,
        "overlap from KV events (exact) or the router's own decisions",
        false,
        0,
        {"events", "router"}},
       {"router_ttl_s", 120, "lifetime of a routed block in the router's index, s", false, 1e-3}},
      [](const Params& params, const PolicyContext& ctx) {
        return std::make_unique<DynamoKvPolicy>(params, ctx);
      },
      "with cache_state: events",
      {{"prefix_match", "it holds part of the prompt"},
       {"no_overlap", "it holds none of the prompt"}},
      "the chosen worker's logit (lower is better)"};
}

}  // namespace kvroute::policies
