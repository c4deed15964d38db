// Read-only views of the replicas that policies are given (policies/policy.h):
// the exact prefix caches (or, for routers that index KV events, the delayed
// view of stale_cache_view.h) and the waiting queues, of all replicas or of one
// deployment's, indexed from 0 as its policy sees them.
#ifndef KVROUTE_SIM_RUNNER_CLUSTER_VIEWS_H_
#define KVROUTE_SIM_RUNNER_CLUSTER_VIEWS_H_

#include <memory>
#include <span>
#include <vector>

#include "models/replica.h"
#include "policies/policy.h"

namespace kvroute::sim {

// A cache oracle over all replicas that can also answer for a contiguous
// range of them, the replicas of one deployment.
class RangedCacheOracle : public policies::CacheOracle {
 public:
  // CachedPrefixBlocks of replicas offset .. offset + out.size() - 1, out[i]
  // for replica offset + i.
  virtual void CachedPrefixBlocksOf(uint32_t offset, std::span<const uint64_t> chain,
                                    std::span<uint32_t> out) const = 0;
};

// The replicas' exact caches.
class ReplicaCacheOracle : public RangedCacheOracle {
 public:
  explicit ReplicaCacheOracle(const std::vector<std::unique_ptr<models::Replica>>& replicas)
      : replicas_(replicas) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return replicas_[replica]->kv_cache().MatchPrefix(chain);
  }
  void CachedPrefixBlocksAll(std::span<const uint64_t> chain,
                             std::span<uint32_t> out) const override {
    CachedPrefixBlocksOf(0, chain, out);
  }
  uint32_t HostTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                          uint32_t from) const override {
    return TierBlocks(replicas_[replica]->host_tier(), chain, from);
  }
  uint32_t StorageTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                             uint32_t from) const override {
    return TierBlocks(replicas_[replica]->ssd_tier(), chain, from);
  }
  // In lockstep (KvCache::MatchPrefixMany), with a filter of the blocks that
  // start a node in any replica's cache, kept from the first call on (only
  // simulations whose policies ask pay for keeping it).
  void CachedPrefixBlocksOf(uint32_t offset, std::span<const uint64_t> chain,
                            std::span<uint32_t> out) const override {
    if (caches_.empty()) {
      filter_ = std::make_unique<models::FirstBlockFilter>();
      for (const auto& replica : replicas_) {
        caches_.push_back(&replica->kv_cache());
        replica->AttachFirstBlockFilter(filter_.get());
      }
    }
    models::KvCache::MatchPrefixMany(std::span(caches_).subspan(offset, out.size()), chain, out,
                                     &scratch_, filter_.get());
  }

 private:
  static uint32_t TierBlocks(const models::HostKvTier* tier, std::span<const uint64_t> chain,
                             uint32_t from) {
    return tier != nullptr
               ? tier->Match(models::BlockChain(chain), from, static_cast<uint32_t>(chain.size()))
               : 0;
  }

  const std::vector<std::unique_ptr<models::Replica>>& replicas_;
  mutable std::vector<const models::KvCache*> caches_;  // filled at the first use
  // The replicas' caches count into it from the first call on; they are the
  // simulation's, destroyed after this view, and its destructor detaches them.
  mutable std::unique_ptr<models::FirstBlockFilter> filter_;
  mutable std::vector<uint32_t> scratch_;
};

class DeploymentCacheOracle : public policies::CacheOracle {
 public:
  DeploymentCacheOracle(const RangedCacheOracle& all, uint32_t offset)
      : all_(all), offset_(offset) {}
  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override {
    return all_.CachedPrefixBlocks(offset_ + replica, chain);
  }
  void CachedPrefixBlocksAll(std::span<const uint64_t> chain,
                             std::span<uint32_t> out) const override {
    all_.CachedPrefixBlocksOf(offset_, chain, out);
  }
  uint32_t HostTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                          uint32_t from) const override {
    return all_.HostTierBlocks(offset_ + replica, chain, from);
  }
  uint32_t StorageTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                             uint32_t from) const override {
    return all_.StorageTierBlocks(offset_ + replica, chain, from);
  }

 private:
  const RangedCacheOracle& all_;
  uint32_t offset_;
};

class DeploymentQueueView : public policies::QueueView {
 public:
  DeploymentQueueView(const std::vector<std::unique_ptr<models::Replica>>& replicas,
                      const models::RequestPool& pool, uint32_t offset)
      : replicas_(replicas), pool_(pool), offset_(offset) {}
  uint32_t QueuedCount(uint32_t replica) const override {
    return replicas_[offset_ + replica]->waiting_count();
  }
  const models::Request* Queued(uint32_t replica, uint32_t i) const override {
    const models::InFlightRequest& r = pool_[replicas_[offset_ + replica]->waiting_slot(i)];
    return r.ever_admitted ? nullptr : &r.request;
  }

 private:
  const std::vector<std::unique_ptr<models::Replica>>& replicas_;
  const models::RequestPool& pool_;
  uint32_t offset_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLUSTER_VIEWS_H_
