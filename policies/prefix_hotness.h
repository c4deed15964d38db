// DualMap's adaptive routing key (Yuan et al., arXiv 2602.06502, §3; policies.md
// §6): a request is keyed by a prefix of its prompt measured in prefix blocks
// (512 tokens in the paper). A prefix that carries more than `extend_share` of
// recent traffic (2/n for n replicas: more than its two candidates' fair share)
// is split by keying its requests one prefix block deeper; it merges back when
// its share falls below `shrink_share` (1/n). The gap between the two is
// hysteresis, so a prefix near the threshold does not flip its requests'
// candidates back and forth.
//
// "Recent traffic" is an exponentially decayed count with time constant
// `window`: a request observed `window` ago weighs 1/e. Shares are ratios of
// decayed counts, so the counts are kept scaled by e^((t - reference)/window)
// and rescaled (with entries worth almost nothing dropped) once the scale
// grows past e.
#ifndef KVROUTE_POLICIES_PREFIX_HOTNESS_H_
#define KVROUTE_POLICIES_PREFIX_HOTNESS_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "models/request_hashes.h"
#include "sim/core/time.h"

namespace kvroute::policies {

class PrefixHotness {
 public:
  struct Config {
    uint32_t blocks_per_level = 32;           // KV blocks per prefix block (512 / 16 tokens)
    double extend_share = 0.25;               // split a prefix above this share of traffic
    double shrink_share = 0.125;              // merge it back below this share
    sim::Time window = sim::FromSeconds(60);  // decay time constant, > 0
  };

  // A routing key: the chained hash of the prompt's first `levels` prefix
  // blocks (the last one may be partial: a prompt ends where it ends).
  // levels == 0 when the prompt has no full KV block; hash is then 0.
  struct Key {
    uint64_t hash = 0;
    uint32_t levels = 0;
  };

  explicit PrefixHotness(Config config);

  // Counts a request with chained KV-block hashes `chain` arriving at `now`
  // under every prefix on its key path, and returns its key.
  Key Observe(std::span<const uint64_t> chain, sim::Time now);
  // The same for a request's prompt, hashed only as far as its key reads.
  Key Observe(const models::RequestHashes& hashes, sim::Time now);

  // The key a request would get now, without counting it.
  Key Peek(std::span<const uint64_t> chain) const;
  // The same for a request's prompt, whose hashes are read, or hashed as far
  // as its key reads, without the request keeping any (a queued request's
  // are often forgotten: RequestHashes::Forget).
  Key Peek(const models::RequestHashes& hashes) const;

  // The decayed share of traffic under prefix `hash` as last counted (0 if
  // unknown), and whether it is currently split.
  double Share(uint64_t hash) const;
  bool Extended(uint64_t hash) const;
  size_t tracked_prefixes() const { return entries_.size(); }

 private:
  struct Entry {
    double weight = 0;  // scaled decayed count
    bool extended = false;
  };
  uint32_t Levels(size_t chain_blocks) const;
  template <typename Chain>
  uint64_t PrefixHash(const Chain& chain, uint32_t level) const;
  template <typename Chain>
  Key ObserveChain(const Chain& chain, sim::Time now);
  template <typename Chain>
  Key PeekChain(const Chain& chain) const;
  void Rescale(sim::Time now);

  Config config_;
  std::unordered_map<uint64_t, Entry> entries_;
  double total_ = 0;  // scaled decayed count of all requests
  sim::Time reference_ = 0;
  mutable std::vector<uint64_t> scratch_;  // a peeked prompt's first hashes
};

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_PREFIX_HOTNESS_H_
