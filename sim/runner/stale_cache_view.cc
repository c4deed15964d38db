#include "sim/runner/stale_cache_view.h"

#include <cassert>
#include <utility>

namespace kvroute::sim {

StaleCacheView::StaleCacheView(uint32_t replicas, Time delay, double loss, uint64_t seed,
                               const RangedCacheOracle& exact, std::function<Time()> clock)
    : delay_(delay),
      loss_(loss),
      exact_(exact),
      clock_(std::move(clock)),
      believed_(replicas),
      truth_(replicas) {
  assert(delay >= 0 && loss >= 0 && loss <= 1);
  publishers_.reserve(replicas);
  for (uint32_t r = 0; r < replicas; ++r) {
    publishers_.emplace_back(this, r);
    if (loss > 0) loss_streams_.emplace_back(seed, "kv_events.loss", r);
  }
}

bool StaleCacheView::Publish(uint32_t replica, Kind kind, uint64_t parent, uint32_t blocks) {
  ++published_;
  if (loss_ > 0 && loss_streams_[replica].Uniform() < loss_) {
    ++lost_;
    return false;
  }
  pending_.push_back(Pending{.visible = clock_() + delay_,
                             .parent = parent,
                             .replica = replica,
                             .blocks = blocks,
                             .kind = kind});
  return true;
}

void StaleCacheView::Publisher::OnBlocksStored(models::BlockChain chain, uint32_t from,
                                               uint32_t to) {
  const uint64_t parent = from > 0 ? chain[from - 1] : 0;
  if (!view_->Publish(replica_, Kind::kStored, parent, to - from)) return;
  for (uint32_t j = from; j < to; ++j) view_->hashes_.push_back(chain[j]);
}

void StaleCacheView::Publisher::OnBlocksRemoved(std::span<const uint64_t> blocks) {
  if (!view_->Publish(replica_, Kind::kRemoved, 0, static_cast<uint32_t>(blocks.size()))) return;
  for (uint64_t block : blocks) view_->hashes_.push_back(block);
}

void StaleCacheView::Publisher::OnAllBlocksCleared() {
  view_->Publish(replica_, Kind::kCleared, 0, 0);
}

void StaleCacheView::DeliverUntil(Time now) const {
  while (!pending_.empty() && pending_.front().visible <= now) {
    Apply(pending_.front());
    pending_.pop_front();
  }
}

void StaleCacheView::Apply(const Pending& event) const {
  switch (event.kind) {
    case Kind::kStored: {
      const bool orphan = event.parent != 0 && !believed_.Holds(event.replica, event.parent);
      for (uint32_t k = 0; k < event.blocks; ++k) {
        if (!orphan) believed_.Add(event.replica, hashes_.front());
        hashes_.pop_front();
      }
      break;
    }
    case Kind::kRemoved:
      for (uint32_t k = 0; k < event.blocks; ++k) {
        believed_.Drop(event.replica, hashes_.front());
        hashes_.pop_front();
      }
      break;
    case Kind::kCleared:
      believed_.DropAll(event.replica);
      break;
  }
}

uint32_t StaleCacheView::CachedPrefixBlocks(uint32_t replica,
                                            std::span<const uint64_t> chain) const {
  uint32_t blocks = 0;
  CachedPrefixBlocksOf(replica, chain, std::span(&blocks, 1));
  return blocks;
}

void StaleCacheView::CachedPrefixBlocksOf(uint32_t offset, std::span<const uint64_t> chain,
                                          std::span<uint32_t> out) const {
  DeliverUntil(clock_());
  believed_.Depths(offset, chain, out);
  std::span<uint32_t> truth = std::span(truth_).first(out.size());
  exact_.CachedPrefixBlocksOf(offset, chain, truth);
  for (size_t i = 0; i < out.size(); ++i) {
    ++counters_.lookups;
    if (out[i] > truth[i]) {
      ++counters_.overestimated;
      counters_.error_blocks += out[i] - truth[i];
    } else if (out[i] < truth[i]) {
      ++counters_.underestimated;
      counters_.error_blocks += truth[i] - out[i];
    }
  }
}

void StaleCacheView::AddCounters(analysis::PointResult* result) const {
  result->kv_view_lookups = counters_.lookups;
  result->kv_view_overestimated = counters_.overestimated;
  result->kv_view_underestimated = counters_.underestimated;
  result->kv_view_error_blocks = counters_.error_blocks;
}

}  // namespace kvroute::sim
