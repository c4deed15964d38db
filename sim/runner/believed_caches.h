// What a router that indexes the engines' KV events believes each replica
// caches (cluster.kv_events): a set of block hashes per replica, kept as one
// entry per block with a bit per replica holding it, as Dynamo's indexer
// keeps a worker set per block (ai-dynamo/dynamo lib/llm/src/kv_router/
// indexer.rs, RadixTree). Events may have been lost, so a replica's set need
// not be prefix-closed: a block can be believed held while its parent is not.
#ifndef KVROUTE_SIM_RUNNER_BELIEVED_CACHES_H_
#define KVROUTE_SIM_RUNNER_BELIEVED_CACHES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/hash_index.h"

namespace kvroute::sim {

class BelievedCaches {
 public:
  explicit BelievedCaches(uint32_t replicas);

  bool Holds(uint32_t replica, uint64_t block) const;
  // REQUIRES: block != 0. Holding a block twice is holding it once.
  void Add(uint32_t replica, uint64_t block);
  // Does nothing if the replica is not believed to hold the block.
  void Drop(uint32_t replica, uint64_t block);
  // Forgets every block of the replica. O(blocks believed held by anyone).
  void DropAll(uint32_t replica);

  // Leading blocks of `chain` that each of replicas first .. first +
  // out.size() - 1 is believed to hold, out[i] for replica first + i: the
  // length of the prefix of which it holds every block, as the replicas'
  // own MatchPrefix counts. O(matched depth x out.size()).
  void Depths(uint32_t first, std::span<const uint64_t> chain, std::span<uint32_t> out) const;

  uint32_t replicas() const { return replicas_; }
  uint32_t entries() const { return index_.size(); }  // blocks someone is believed to hold

 private:
  const uint64_t* Bits(uint32_t entry) const { return &bits_[size_t{entry} * words_]; }
  uint64_t* Bits(uint32_t entry) { return &bits_[size_t{entry} * words_]; }
  void Free(uint32_t entry);

  uint32_t replicas_;
  uint32_t words_;                // 64-bit words of holder bits per entry
  models::BlockHashIndex index_;  // block hash -> entry
  std::vector<uint64_t> hash_;    // per entry: its block, 0 when the entry is free
  std::vector<uint64_t> bits_;    // per entry: words_ words, bit r set if replica r holds it
  std::vector<uint32_t> free_;    // entries to reuse
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_BELIEVED_CACHES_H_
