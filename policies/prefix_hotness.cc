#include "policies/prefix_hotness.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "policies/prompt_chain.h"

namespace kvroute::policies {
namespace {

// An entry whose decayed count is below this (a twentieth of one request now)
// is dropped at rescaling: its share is negligible unless traffic has all but
// stopped, and keeping it would let the table grow with every distinct prompt.
constexpr double kForgetBelow = 0.05;

}  // namespace

PrefixHotness::PrefixHotness(Config config) : config_(config) {
  assert(config_.blocks_per_level > 0 && config_.window > 0);
}

uint32_t PrefixHotness::Levels(size_t chain_blocks) const {
  return static_cast<uint32_t>((chain_blocks + config_.blocks_per_level - 1) /
                               config_.blocks_per_level);
}

template <typename Chain>
uint64_t PrefixHotness::PrefixHash(const Chain& chain, uint32_t level) const {
  const auto blocks = static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{level} * config_.blocks_per_level, chain.size()));
  return chain.Prefix(blocks)[blocks - 1];
}

void PrefixHotness::Rescale(sim::Time now) {
  const double factor =
      std::exp(-sim::ToSeconds(now - reference_) / sim::ToSeconds(config_.window));
  total_ *= factor;
  for (auto it = entries_.begin(); it != entries_.end();) {
    it->second.weight *= factor;
    if (it->second.weight < kForgetBelow) {
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  reference_ = now;
}

PrefixHotness::Key PrefixHotness::Observe(std::span<const uint64_t> chain, sim::Time now) {
  return ObserveChain(WholeChain{chain}, now);
}

PrefixHotness::Key PrefixHotness::Observe(const models::RequestHashes& hashes, sim::Time now) {
  if (hashes.segments().empty()) return Observe(hashes.prompt(), now);
  return ObserveChain(PromptChain{hashes}, now);
}

PrefixHotness::Key PrefixHotness::Peek(std::span<const uint64_t> chain) const {
  return PeekChain(WholeChain{chain});
}

namespace {

// A request's prompt read through RequestHashes::PeekPrefix, each level's
// prefix going on from the last's.
struct PeekedChain {
  const models::RequestHashes& hashes;
  std::vector<uint64_t>* scratch;
  models::SequenceHasher::PrefixCursor* at;
  uint32_t size() const { return hashes.prompt_blocks(); }
  std::span<const uint64_t> Prefix(uint32_t blocks) const {
    return hashes.PeekPrefix(blocks, scratch, at);
  }
};

}  // namespace

PrefixHotness::Key PrefixHotness::Peek(const models::RequestHashes& hashes) const {
  scratch_.clear();
  models::SequenceHasher::PrefixCursor at;
  return PeekChain(PeekedChain{hashes, &scratch_, &at});
}

template <typename Chain>
PrefixHotness::Key PrefixHotness::ObserveChain(const Chain& chain, sim::Time now) {
  if (now - reference_ > config_.window) Rescale(now);
  const double weight = std::exp(sim::ToSeconds(std::max<sim::Time>(0, now - reference_)) /
                                 sim::ToSeconds(config_.window));
  total_ += weight;
  const uint32_t levels = Levels(chain.size());
  for (uint32_t level = 1; level <= levels; ++level) {
    const uint64_t hash = PrefixHash(chain, level);
    Entry& e = entries_[hash];
    e.weight += weight;
    const double share = e.weight / total_;
    if (!e.extended && share > config_.extend_share) {
      e.extended = true;
    } else if (e.extended && share < config_.shrink_share) {
      e.extended = false;
    }
    if (!e.extended || level == levels) return Key{hash, level};
  }
  return Key{};
}

template <typename Chain>
PrefixHotness::Key PrefixHotness::PeekChain(const Chain& chain) const {
  const uint32_t levels = Levels(chain.size());
  for (uint32_t level = 1; level <= levels; ++level) {
    const uint64_t hash = PrefixHash(chain, level);
    auto it = entries_.find(hash);
    if (it == entries_.end() || !it->second.extended || level == levels) return Key{hash, level};
  }
  return Key{};
}

double PrefixHotness::Share(uint64_t hash) const {
  auto it = entries_.find(hash);
  return it == entries_.end() || total_ <= 0 ? 0 : it->second.weight / total_;
}

bool PrefixHotness::Extended(uint64_t hash) const {
  auto it = entries_.find(hash);
  return it != entries_.end() && it->second.extended;
}

}  // namespace kvroute::policies
