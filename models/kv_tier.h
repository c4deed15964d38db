// A replica's host-memory (DRAM) KV tier below the HBM prefix cache, and the
// optional local-SSD tier below that (DESIGN.md, "KV memory"; issue 14). Both
// are this class, one instance per level. A tier holds copies of full KV blocks, keyed
// by their chained block hash, in one LRU list, and is filled by one of two
// rules:
//  - kOnEvict: a block evicted from HBM is copied here (vLLM's native
//    OffloadingConnector, vllm/v1/kv_offload/ and
//    vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py;
//    SGLang HiCache's write_back policy, python/sglang/srt/mem_cache/
//    hiradix_cache.py);
//  - kWriteThrough: every full block is copied when it is registered in the
//    HBM cache (LMCache's store on save; HiCache's write_through,
//    docs/advanced_features/hicache_best_practices.md).
// A prefill whose chain continues in DRAM after its HBM hit loads those blocks
// back instead of recomputing them; the copy here stays (it is a cache). A
// block already held is never copied twice: storing it again only refreshes
// its recency (vLLM's LRUOffloadingManager, vllm/v1/kv_offload/lru_manager.py,
// leaves stored blocks out of prepare_store), and blocks being loaded cannot be
// dropped (prepare_load protects them, vllm/v1/kv_offload/abstract.py).
//
// A tier may spill to one below it (SpillTo, the SSD under DRAM), by the
// same rule as it is filled: kOnEvict writes the blocks its LRU drops there
// (HiCache's write_back, "written back to the next level only when it is
// evicted from the upper level", sglang docs/advanced_features/
// hicache_design.md; Dynamo KVBM's G1 -> G2 -> G3 offload cascade), and
// kWriteThrough every block it gets (HiCache's write_through "to all tiers";
// LMCache's StorageManager.batched_put stores into every backend,
// lmcache/v1/storage_backend/storage_manager.py). A hit below is read into
// this tier on its way to HBM (Promote): HiCache prefetches L3 into L2 host
// memory and loads L2 -> L1 from there (hicache_design.md, "Prefetch from
// L3", whose wait_complete policy is this blocking load).
//
// Invariants: each held hash is in the index and on the LRU list exactly once;
// held_blocks() <= capacity; stored = held + dropped over the tier's life
// (every copy made is either held or was dropped; Clear counts what it
// forgets as dropped).
#ifndef KVROUTE_MODELS_KV_TIER_H_
#define KVROUTE_MODELS_KV_TIER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/block_run_tree.h"
#include "sim/core/flat_hash_index.h"
#include "sim/core/time.h"

namespace kvroute::models {

enum class OffloadRule { kOnEvict, kWriteThrough };

// Defaults of the local SSD, both assumptions. One PCIe Gen4 x4 NVMe drive
// per GPU (DGX H100 has eight data drives for its eight GPUs), read in
// block-sized files at its sequential rate: 7,000 MB/s for Samsung's PM1733
// (Samsung's PM1743 announcement, 2021-12-23, which lists both; the Gen5
// PM1743 is rated 13,000 MB/s). A read pays 100 us for the NAND page read,
// the file system and the submission (TLC NAND reads take 50-100 us).
inline constexpr double kDefaultSsdGbPerS = 7;
inline constexpr double kDefaultSsdLatencyUs = 100;

// Defaults of the host link, both assumptions to replace with a measurement
// of the machine at hand. PCIe Gen5 x16 carries 32 GT/s x 16 lanes x 128/130
// = 63 GB/s each way (PCI-SIG, PCIe 5.0 base specification); pinned-memory
// copies reach roughly 80% of the raw rate, so 50 GB/s per GPU. A load pays a
// fixed cost for the DMA set-up and the connector's bookkeeping: 10 us.
inline constexpr double kDefaultHostGbPerS = 50;
inline constexpr double kDefaultHostLatencyUs = 10;

struct KvTierConfig {
  uint32_t capacity_blocks = 0;  // 0: no host tier (the replica has HBM only)
  double bytes_per_block = 0;    // KV bytes of one block on the whole replica (all TP ranks)
  // Host-to-device copy rate of the whole replica (each TP rank has its own
  // PCIe link, so a rank's share moves in parallel with the others'), bytes/s.
  double bandwidth_bytes_per_s = 0;
  sim::Time latency = 0;  // fixed cost of one load transfer (DMA set-up, sync)
  OffloadRule offload = OffloadRule::kOnEvict;

  bool enabled() const { return capacity_blocks > 0; }
  // Time to load `blocks` blocks in one transfer: latency + bytes / bandwidth.
  sim::Time LoadTime(uint32_t blocks) const;
};

// For DRAM (SSD): "above" is HBM (DRAM), "below" is SSD (nothing).
struct KvTierCounters {
  uint64_t stored_blocks = 0;    // copies made into this tier, from above or below
  uint64_t promoted_blocks = 0;  // of those, read from the tier below at a load
  uint64_t loaded_blocks = 0;    // copies made from this tier upwards at loads
  uint64_t dropped_blocks = 0;   // evicted (LRU), or lost with the replica
  uint64_t skipped_stores = 0;   // stores refused: every held block was being loaded
  uint64_t loads = 0;            // load transfers
  sim::Time load_time = 0;       // their summed duration
};

class HostKvTier {
 public:
  // REQUIRES: config.enabled().
  explicit HostKvTier(const KvTierConfig& config);

  HostKvTier(const HostKvTier&) = delete;
  HostKvTier& operator=(const HostKvTier&) = delete;

  // How many of chain[from], chain[from + 1], ... (at most `limit` - `from`)
  // are held, consecutively. Changes nothing.
  uint32_t Match(BlockChain chain, uint32_t from, uint32_t limit) const;

  // Marks chain[from, from + blocks) as about to be loaded: until EndLoad, a
  // Store never drops them to make room. REQUIRES: they are held (Match).
  void BeginLoad(BlockChain chain, uint32_t from, uint32_t blocks);
  // Ends the load begun last. If `done`, the blocks were loaded: they become
  // the most recently used (the chain's first one last, so the deepest go
  // first, as a radix cache evicts leaves first), and the transfer is counted,
  // with `through` more blocks the tier below supplied that cross this tier's
  // link in the same transfer. Returns its time (0 if !done).
  sim::Time EndLoad(BlockChain chain, uint32_t from, uint32_t blocks, bool done,
                    uint32_t through = 0);

  // Copies the block `hash` in (or refreshes it if held), dropping the least
  // recently used block not being loaded when full; then spills as the rule
  // says (SpillTo).
  void Store(uint64_t hash);

  // Blocks this tier drops (kOnEvict) or stores (kWriteThrough) are stored in
  // `below` from now on. REQUIRES: below outlives this tier.
  void SpillTo(HostKvTier* below) { below_ = below; }
  // Copies chain[from, from + blocks), read from the tier below for a load,
  // in (deepest first); they are not written back down.
  void Promote(BlockChain chain, uint32_t from, uint32_t blocks);

  // Forgets every block (the replica failed or starts cold).
  void Clear();

  const KvTierConfig& config() const { return config_; }
  uint32_t held_blocks() const { return held_; }
  const KvTierCounters& counters() const { return counters_; }
  // Held hashes from least to most recently used (for tests).
  std::vector<uint64_t> LruOrder() const;
  // Checks the invariants above; an empty string or the first violation.
  std::string CheckInvariants() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Entry {
    uint64_t hash = 0;
    uint64_t load_epoch = 0;  // == epoch_: being loaded, not to be dropped
    uint32_t prev = kNone;    // towards the least recently used
    uint32_t next = kNone;
  };
  // The index keys are non-zero; a zero hash is stored under this stand-in.
  static uint64_t Key(uint64_t hash) { return hash == 0 ? 0x9e3779b97f4a7c15ULL : hash; }
  // Store without the write-through (a block dropped to make room still
  // spills under kOnEvict); true if a new copy was made.
  bool Insert(uint64_t hash);
  void Unlink(uint32_t e);
  void PushMru(uint32_t e);

  KvTierConfig config_;
  sim::FlatHashIndex index_;     // Key(hash) -> entry
  std::vector<Entry> entries_;   // capacity_blocks slots, allocated once
  std::vector<uint32_t> spare_;  // free entry slots
  uint32_t lru_ = kNone, mru_ = kNone;
  uint32_t held_ = 0;
  uint64_t epoch_ = 1;
  KvTierCounters counters_;
  HostKvTier* below_ = nullptr;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_KV_TIER_H_
