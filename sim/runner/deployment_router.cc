#include "sim/runner/deployment_router.h"

#include <algorithm>

#include "policies/deployment_choice.h"

namespace kvroute::sim {

DeploymentRouter::DeploymentRouter(const Scenario& scenario, uint64_t seed,
                                   const policies::CacheOracle& oracle)
    : scenario_(scenario),
      oracle_(oracle),
      rng_(seed, "router.deployment"),
      bucket_(FromSeconds(scenario.series_interval_s)) {
  pools_ = scenario.Pools();
  for (const RoutingPool& p : pools_) {
    offsets_.push_back(p.offset);
    sizes_.push_back(p.replicas);
  }
  if (count() > 1 && scenario.lambda_h > 0 &&
      scenario.deployment_hit_estimate == Scenario::HitEstimate::kRouter) {
    for (const RoutingPool& p : pools_) {
      uint64_t blocks = 0;
      for (uint32_t d = p.first; d < p.first + p.count; ++d) {
        blocks += uint64_t{scenario.deployments[d].replicas} * scenario.KvBlocksOf(d);
      }
      sent_.emplace_back(1, static_cast<uint32_t>(std::min<uint64_t>(blocks, UINT32_MAX)), 0);
    }
  }
  weights_.resize(count());
  hit_ratios_.resize(count());
  waiting_.resize(count());
  scratch_.resize(count());
}

uint32_t DeploymentRouter::Pick(const models::Request& request, Time now,
                                std::span<const models::ReplicaLoad> loads) {
  const uint32_t n = count();
  const double now_s = ToSeconds(now);
  // One deployment: the request goes there, its blocks unread (a prompt is
  // hashed only when first read, request_hashes.h).
  if (n == 1) {
    for (uint32_t r = offsets_[0]; r < offsets_[0] + sizes_[0]; ++r) {
      if (loads[r].healthy) return 0;
    }
    return n;
  }
  const auto& chain = request.hashes.prompt();
  for (uint32_t d = 0; d < n; ++d) {
    bool up = false;
    uint32_t best = 0, serving = 0;
    double waiting = 0;
    for (uint32_t r = offsets_[d]; r < offsets_[d] + sizes_[d]; ++r) {
      if (!loads[r].healthy) continue;
      up = true;
      ++serving;
      waiting += loads[r].waiting;
      if (scenario_.lambda_h > 0 && !chain.empty() && sent_.empty()) {
        best = std::max(best, oracle_.CachedPrefixBlocks(r, chain));
      }
    }
    if (up && !sent_.empty()) best = sent_[d].Depth(0, chain, now);
    weights_[d] = up ? scenario_.PoolWeightAt(pools_[d], now_s) : 0;
    hit_ratios_[d] =
        chain.empty() ? 0 : static_cast<double>(best) / static_cast<double>(chain.size());
    waiting_[d] = serving > 0 ? waiting / serving : 0;
  }
  return static_cast<uint32_t>(policies::ChooseDeployment(
      weights_, hit_ratios_, scenario_.lambda_h, rng_, scratch_, waiting_, scenario_.lambda_q));
}

// Counts the request for deployment `chosen`, and for each deployment whether
// the prompt was wholly cached elsewhere (hit_ratios_ are this request's).
void DeploymentRouter::OnRouted(const models::Request& request, uint32_t chosen) {
  if (count() == 1) return;
  ++Sample(request.arrival, chosen).requests;
  for (uint32_t d = 0; d < count(); ++d) {
    bool elsewhere = false;
    for (uint32_t o = 0; o < count(); ++o) elsewhere |= o != d && hit_ratios_[o] == 1;
    if (!elsewhere) continue;
    analysis::DeploymentSample& sample = Sample(request.arrival, d);
    ++sample.hit_elsewhere;
    if (d == chosen) ++sample.hit_elsewhere_taken;
    if (hit_ratios_[d] > 0) continue;
    ++sample.cold_hit_elsewhere;
    if (d == chosen) ++sample.cold_hit_elsewhere_taken;
  }
}

void DeploymentRouter::OnQueued(const models::Request& request, uint32_t d, Time now) {
  if (!sent_.empty()) sent_[d].Record(0, request.hashes.prompt(), now);
}

void DeploymentRouter::OnAdmitted(const models::InFlightRequest& r, uint32_t d) {
  if (count() == 1) return;
  analysis::DeploymentSample& sample = Sample(r.request.arrival, d);
  sample.prompt_tokens += r.request.prompt_tokens;
  sample.hit_tokens += r.hit_tokens;
}

std::vector<analysis::DeploymentSample> DeploymentRouter::TakeSeries() {
  if (!series_.empty()) {
    const size_t last_bucket = (series_.size() - 1) / count();
    Sample(static_cast<Time>(last_bucket) * bucket_, count() - 1);
  }
  return std::move(series_);
}

analysis::DeploymentSample& DeploymentRouter::Sample(Time arrival, uint32_t d) {
  const uint64_t bucket = static_cast<uint64_t>(arrival / bucket_);
  const size_t index = bucket * count() + d;
  while (series_.size() <= index) {
    analysis::DeploymentSample sample;
    sample.deployment = static_cast<uint32_t>(series_.size() % count());
    sample.start_s = static_cast<double>(series_.size() / count()) * scenario_.series_interval_s;
    series_.push_back(sample);
  }
  return series_[index];
}

}  // namespace kvroute::sim
