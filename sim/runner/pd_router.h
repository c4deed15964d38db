// Prefill/decode disaggregation (cluster.disaggregation): which prompts the
// prefill pool computes, and the network that carries their KV to the decode
// pool.
//
// A request is routed to a decode replica first, by the decode deployment's
// policy (llm-d's pd-profile-handler runs its decode profile first,
// pkg/plugins/profile/pd_profile_handler.go). The decider then looks at that
// replica's cached prefix, as the decode policy sees it, and either sends the
// prompt to a prefill replica chosen by the prefill deployment's policy or
// lets the decode replica prefill it itself (llm-d's prefix-based-pd-decider,
// pkg/plugins/profile/prefix_based_pd_decider.go: no split when the
// non-cached suffix is shorter than nonCachedTokens).
//
// A split request runs on the prefill replica until its first token, as
// vLLM's prefill instance does with max_tokens 1; its blocks then go back to
// that replica's prefix cache. The KV of every prompt token but the last that
// the decode replica does not hold is sent over the network; the decode
// replica then computes the last prompt token and samples the first output
// token (vLLM's NixlConnector, vllm/distributed/kv_transfer/kv_connector/v1/
// nixl_connector.py get_num_new_matched_tokens). TTFT therefore spans the
// prefill queue and prefill, the transfer, the decode queue and the first
// decode step.
//
// The network: every replica has one interface of link_gb_per_s per GPU. A
// transfer occupies the prefill replica's and the decode replica's
// interfaces for link_latency_us + bytes / the slower of the two, first come
// first served: one waits for both to be free. Two simplifications, stated
// in docs/DISAGGREGATION.md: the decode replica allocates its blocks when the
// KV has arrived (vLLM allocates them before it pulls), and the prefill
// replica frees its blocks when the prefill ends (vLLM keeps them until the
// decode side has read them).
#ifndef KVROUTE_SIM_RUNNER_PD_ROUTER_H_
#define KVROUTE_SIM_RUNNER_PD_ROUTER_H_

#include <cstdint>
#include <vector>

#include "analysis/point_metrics.h"
#include "models/request.h"
#include "sim/core/time.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

class PdRouter {
 public:
  // REQUIRES: scenario.disaggregation.enabled.
  explicit PdRouter(const Scenario& scenario);

  // The prefill and the decode routing pool, as Scenario::Pools() numbers
  // them: one or several deployments of that role each.
  uint32_t prefill_pool() const { return prefill_; }
  uint32_t decode_pool() const { return decode_; }

  // Whether `request`'s prompt goes to the prefill pool, given the blocks of
  // its prompt the chosen decode replica holds (as its policy sees them).
  bool Split(const models::Request& request, uint32_t decode_cached_blocks) const;

  // Sends the KV of `tokens` tokens from replica `from` to replica `to`,
  // ready to go at `now`; returns when the last byte arrives.
  Time Transfer(uint32_t from, uint32_t to, uint32_t tokens, Time now);

  // Counts a routing decision of a measured request.
  void OnDecided(bool split) { ++(split ? split_ : local_); }

  // disaggregation.* statistics: share of prompts prefilled remotely,
  // transfers, GB sent, mean transfer time and mean wait for the link.
  void AddStats(analysis::PointResult* result) const;

 private:
  const DisaggregationSpec& spec_;
  uint32_t prefill_ = 0, decode_ = 0;  // routing pool indices
  uint32_t block_size_;
  std::vector<double> bytes_per_token_;  // per replica: the KV of one token, all GPUs
  std::vector<double> bytes_per_s_;      // per replica: its interfaces' bandwidth
  std::vector<Time> free_at_;            // per replica: its interface is busy until then
  Time latency_;
  uint64_t split_ = 0, local_ = 0, transfers_ = 0;
  double bytes_ = 0, busy_s_ = 0, wait_s_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PD_ROUTER_H_
