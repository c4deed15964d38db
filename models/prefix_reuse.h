// What each prompt of a stream finds of the prompts before it, computed a run
// of blocks at a time rather than a block at a time, so that the workload
// diagnostics (workload_stats.h) take seconds on a million requests.
//
// The blocks of all prompts seen form a trie (chained hashes: a block names
// its whole prefix). A prompt's blocks split into runs, one per segment: the
// blocks whose last token lies in that segment (prompt_blocks.h). Inside a run
// every block after the first continues the same segment, so it is fixed by
// its parent; two prompts that share a run's first block share its next
// min(their run lengths) blocks. The trie is therefore kept as groups of
// consecutive blocks that every prompt so far touched all or none of; a group
// splits only where a later prompt's run ends inside it. All blocks of a group
// were last seen together, and touched together, so one group stands for them
// in every figure:
//  - seen before (an infinite cache) and last-seen time (the recency windows);
//  - LRU recency: a prompt touches its blocks deepest first, so a block is
//    always more recent than every block below it, the blocks of an LRU cache
//    of C blocks are the C most recent ones (Mattson et al. 1970, the stack
//    property), and the number of blocks more recent than a group's first
//    block (a Fenwick tree over touch order, one entry per group touch) gives
//    the prefix hit of every cache size at once.
// Exact: the figures are those of a block-by-block replay (tested against one).
#ifndef KVROUTE_MODELS_PREFIX_REUSE_H_
#define KVROUTE_MODELS_PREFIX_REUSE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/prompt_blocks.h"
#include "sim/core/flat_hash_index.h"
#include "sim/core/time.h"

namespace kvroute::models {

class PrefixReuse {
 public:
  // Consecutive blocks of the prompt found in the trie, in prompt order.
  struct Match {
    uint32_t blocks = 0;
    sim::Time last_seen = 0;
    uint64_t more_recent_blocks = 0;  // distinct blocks touched after the first of these
  };

  PrefixReuse();

  // Matches of `blocks` (a prompt's chained block hashes) against every prompt
  // observed before, then records this prompt as seen and touched at `now`.
  // `run_ends` are the block indices where the prompt's runs end, strictly
  // increasing, the last one blocks.size(). The result lives until the next call.
  std::span<const Match> Observe(std::span<const uint64_t> blocks,
                                 std::span<const uint32_t> run_ends, sim::Time now);

 private:
  struct Group {
    uint32_t blocks = 0;
    uint32_t event = 0;  // its entry in the touch order; 0: none yet
    sim::Time last_seen = 0;
  };

  uint32_t NewGroup(uint64_t key, uint32_t blocks, uint32_t event, sim::Time last_seen);
  void Touch(uint32_t group, sim::Time now);
  uint64_t PrefixSum(uint32_t event) const;
  void Add(uint32_t event, int64_t delta);
  void Renumber();

  sim::FlatHashIndex index_;  // key of a group's first block -> group
  uint32_t index_capacity_;
  std::vector<uint64_t> keys_;  // per group, for rebuilding the index
  std::vector<Group> groups_;
  std::vector<uint64_t> tree_;   // Fenwick tree of blocks per touch event, 1-based
  std::vector<uint32_t> owner_;  // per touch event: its group, or kNone once retouched
  uint32_t next_event_ = 1;
  uint64_t total_blocks_ = 0;
  std::vector<Match> matches_;  // scratch
  std::vector<uint32_t> path_;  // scratch: the prompt's groups, root first
};

// The run ends of a prompt made of `segments` with `blocks` full blocks of
// `block_size` tokens, into `out` (cleared first): segment i's run ends at
// block floor(end of segment i / block_size); empty runs are dropped.
void SegmentRunEnds(std::span<const PromptSegment> segments, uint32_t block_size, uint32_t blocks,
                    std::vector<uint32_t>* out);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PREFIX_REUSE_H_
