#include "sim/runner/pd_router.h"

#include <algorithm>
#include <cmath>

namespace kvroute::sim {

// The loader leaves two routing pools, one of each role; prefill_ and
// decode_ are their indices among the pools (as the simulation's routing
// domains are numbered).
PdRouter::PdRouter(const Scenario& scenario)
    : spec_(scenario.disaggregation),
      block_size_(
          static_cast<uint32_t>(scenario.resolved_profile.ResolvedEngine().block_size_tokens)),
      latency_(FromSeconds(scenario.disaggregation.link_latency_us * 1e-6)) {
  const std::vector<RoutingPool> pools = scenario.Pools();
  for (uint32_t p = 0; p < pools.size(); ++p) {
    const DeploymentRole role = scenario.deployments[pools[p].first].role;
    if (role == DeploymentRole::kPrefill) prefill_ = p;
    if (role == DeploymentRole::kDecode) decode_ = p;
  }
  for (uint32_t d = 0; d < scenario.deployments.size(); ++d) {
    const models::Profile& p = scenario.ProfileOf(d);
    for (uint32_t r = 0; r < scenario.deployments[d].replicas; ++r) {
      bytes_per_token_.push_back(p.KvBytesPerToken());
      bytes_per_s_.push_back(spec_.link_gb_per_s * 1e9 * p.tensor_parallel);
    }
  }
  free_at_.assign(bytes_per_s_.size(), 0);
}

bool PdRouter::Split(const models::Request& request, uint32_t decode_cached_blocks) const {
  using Decider = DisaggregationSpec::Decider;
  switch (spec_.decider) {
    case Decider::kAlways:
      return true;
    case Decider::kThreshold: {
      const uint64_t cached = uint64_t{decode_cached_blocks} * block_size_;
      const uint64_t uncached = request.prompt_tokens > cached ? request.prompt_tokens - cached : 0;
      return uncached >= spec_.threshold_tokens;
    }
    case Decider::kDecodeFirst:
      return decode_cached_blocks < request.hashes.prompt().size();
  }
  return true;
}

Time PdRouter::Transfer(uint32_t from, uint32_t to, uint32_t tokens, Time now) {
  const Time start = std::max({now, free_at_[from], free_at_[to]});
  // The sender's KV layout is what travels (the pools may store KV in
  // different dtypes; the receiver converts).
  const double bytes = bytes_per_token_[from] * tokens;
  const double rate = std::min(bytes_per_s_[from], bytes_per_s_[to]);
  const Time end = start + latency_ + FromSeconds(bytes / rate);
  free_at_[from] = free_at_[to] = end;
  ++transfers_;
  bytes_ += bytes;
  busy_s_ += ToSeconds(end - now);
  wait_s_ += ToSeconds(start - now);
  return end;
}

void PdRouter::AddStats(analysis::PointResult* result) const {
  const uint64_t decided = split_ + local_;
  const double n = static_cast<double>(transfers_);
  auto add = [&](const char* name, double value) {
    result->policy_stats.emplace_back(std::string("disaggregation.") + name, value);
  };
  add("split_share",
      decided > 0 ? static_cast<double>(split_) / static_cast<double>(decided) : std::nan(""));
  add("transfers", n);
  add("transfer_gb", bytes_ / 1e9);
  add("mean_transfer_s", transfers_ > 0 ? busy_s_ / n : std::nan(""));
  add("mean_link_wait_s", transfers_ > 0 ? wait_s_ / n : std::nan(""));
}

}  // namespace kvroute::sim
