// The replicas' prefix caches as a router that indexes the engines' KV events
// sees them (cluster.kv_events; docs/MODEL.md, "Stale cache views"). Each
// replica's cache publishes a BlockStored / BlockRemoved / AllBlocksCleared
// event per run of blocks it stores or evicts (models/kv_events.h); each event
// is lost with probability `loss`, drawn when it is published from the
// replica's own stream ("kv_events.loss", replica), and otherwise becomes
// visible `delay` after it, in publication order. A stored event whose parent
// block the view does not hold is dropped whole, as Dynamo's indexer rejects
// it (ParentBlockNotFound, ai-dynamo/dynamo lib/llm/src/kv_router/indexer.rs);
// a removal of a block the view does not hold is skipped.
//
// Events wait in one FIFO (a single delay keeps it in visibility order) and
// are applied lazily, when a router asks; nothing is scheduled on the event
// queue. Queues and indexes stop allocating once they reach their working size.
#ifndef KVROUTE_SIM_RUNNER_STALE_CACHE_VIEW_H_
#define KVROUTE_SIM_RUNNER_STALE_CACHE_VIEW_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "analysis/point_metrics.h"
#include "models/kv_events.h"
#include "sim/core/random_stream.h"
#include "sim/core/ring_deque.h"
#include "sim/core/time.h"
#include "sim/runner/believed_caches.h"
#include "sim/runner/cluster_views.h"

namespace kvroute::sim {

// How the view's answers compared with the replicas' real caches, one count
// per (routing question, replica) pair.
struct KvViewCounters {
  uint64_t lookups = 0;
  uint64_t overestimated = 0;   // believed prefix longer than the real one
  uint64_t underestimated = 0;  // shorter
  uint64_t error_blocks = 0;    // sum of |believed - real| prefix blocks
};

class StaleCacheView : public RangedCacheOracle {
 public:
  // `exact` answers what the replicas really cache (for the counters);
  // `clock` is the simulated time now. Both must outlive the view.
  StaleCacheView(uint32_t replicas, Time delay, double loss, uint64_t seed,
                 const RangedCacheOracle& exact, std::function<Time()> clock);

  StaleCacheView(const StaleCacheView&) = delete;
  StaleCacheView& operator=(const StaleCacheView&) = delete;

  // Where replica r's cache publishes its events (KvCache::set_event_listener).
  models::KvEventListener* publisher(uint32_t replica) { return &publishers_[replica]; }

  // Applies every event visible at `now`. Queries do this themselves.
  void DeliverUntil(Time now) const;

  uint32_t CachedPrefixBlocks(uint32_t replica, std::span<const uint64_t> chain) const override;
  // The host and SSD tiers' events are not modelled: they are read exactly.
  uint32_t HostTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                          uint32_t from) const override {
    return exact_.HostTierBlocks(replica, chain, from);
  }
  uint32_t StorageTierBlocks(uint32_t replica, std::span<const uint64_t> chain,
                             uint32_t from) const override {
    return exact_.StorageTierBlocks(replica, chain, from);
  }
  void CachedPrefixBlocksAll(std::span<const uint64_t> chain,
                             std::span<uint32_t> out) const override {
    CachedPrefixBlocksOf(0, chain, out);
  }
  void CachedPrefixBlocksOf(uint32_t offset, std::span<const uint64_t> chain,
                            std::span<uint32_t> out) const override;

  const KvViewCounters& counters() const { return counters_; }
  // The counters into the point's kv_view_* fields.
  void AddCounters(analysis::PointResult* result) const;
  uint64_t published() const { return published_; }  // events, lost ones included
  uint64_t lost() const { return lost_; }

 private:
  enum class Kind : uint8_t { kStored, kRemoved, kCleared };
  struct Pending {
    Time visible = 0;
    uint64_t parent = 0;  // kStored: the block before the run; 0 for none
    uint32_t replica = 0;
    uint32_t blocks = 0;  // its hashes, next in hashes_
    Kind kind = Kind::kStored;
  };
  class Publisher : public models::KvEventListener {
   public:
    Publisher(StaleCacheView* view, uint32_t replica) : view_(view), replica_(replica) {}
    void OnBlocksStored(models::BlockChain chain, uint32_t from, uint32_t to) override;
    void OnBlocksRemoved(std::span<const uint64_t> blocks) override;
    void OnAllBlocksCleared() override;

   private:
    StaleCacheView* view_;
    uint32_t replica_;
  };

  // Draws whether replica's next event is lost; if not, queues it (its
  // hashes must be pushed to hashes_ by the caller when this returns true).
  bool Publish(uint32_t replica, Kind kind, uint64_t parent, uint32_t blocks);
  void Apply(const Pending& event) const;

  Time delay_;
  double loss_;
  const RangedCacheOracle& exact_;
  std::function<Time()> clock_;
  std::vector<Publisher> publishers_;
  std::vector<RandomStream> loss_streams_;  // per replica; empty when loss is 0
  uint64_t published_ = 0;
  uint64_t lost_ = 0;
  // Lazily applied state: queries are const to the policies that ask them.
  mutable RingDeque<Pending> pending_;
  mutable RingDeque<uint64_t> hashes_;
  mutable BelievedCaches believed_;
  mutable KvViewCounters counters_;
  mutable std::vector<uint32_t> truth_;  // scratch: the exact answers
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_STALE_CACHE_VIEW_H_
