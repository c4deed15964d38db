// What a request stream offers a prefix cache, measured before any simulation
// (`kvroute workload-stats`, `kvroute trace-stats`): rates, lengths, key skew,
// burstiness, the hit rate of an infinite cache and of LRU caches, and the
// diagnostic seed 003 §8 asks for — the share of prompt tokens whose prefix was
// already seen within a window T (T standing in for the engine's eviction time).
#ifndef KVROUTE_MODELS_WORKLOAD_STATS_H_
#define KVROUTE_MODELS_WORKLOAD_STATS_H_

#include <cstdint>
#include <ostream>
#include <span>
#include <vector>

#include "models/prefix_reuse.h"
#include "models/prompt_blocks.h"
#include "models/request.h"

namespace kvroute::models {

struct WorkloadStatsOptions {
  uint32_t block_size = 16;          // tokens per block of the requests' hashes
  std::vector<uint64_t> lru_blocks;  // LRU cache sizes to replay, in blocks
  std::vector<double> windows_s;     // windows T of the recency diagnostic
  // The engine caches full blocks of generated tokens (EngineSettings): a
  // request's output blocks join the cache with its prompt's, so a later
  // prompt that repeats them can hit them. Hits are counted on prompts only.
  bool cache_generated_tokens = false;
};

struct LengthSummary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct WorkloadStats {
  uint64_t requests = 0;
  double duration_s = 0;  // first to last arrival
  double qps = 0;         // requests / duration
  LengthSummary prompt_tokens, output_tokens;
  uint64_t keys_seen = 0;
  double key_gini = 0;  // over the keys that appear
  double top1_key_share = 0, top1pct_keys_share = 0, top4pct_keys_share = 0;
  double interarrival_cv = 0;
  double ideal_hit_rate = 0;               // token-weighted, infinite cache
  std::vector<double> lru_hit_rates;       // per options.lru_blocks
  std::vector<double> seen_within_window;  // per options.windows_s
};

// Consumes requests in arrival order, a run of blocks at a time (prefix_reuse.h):
// a million requests take seconds. Memory grows with the groups of blocks
// (about 50-70 bytes each, a few per distinct run seen) and 8 bytes per request.
class WorkloadStatsCollector {
 public:
  explicit WorkloadStatsCollector(WorkloadStatsOptions options);

  // `segments` are the prompt's segments (RequestSource::segments()); without
  // them every block is a run of its own, which gives the same figures slowly.
  // REQUIRES: requests in non-decreasing arrival order; either every request
  // comes with its segments or none does (std::invalid_argument otherwise).
  void Add(const Request& r, std::span<const PromptSegment> segments = {});
  WorkloadStats Finish();

 private:
  WorkloadStatsOptions options_;
  std::vector<uint64_t> lru_capacity_;  // per options.lru_blocks, as an LRU cache holds them
  PrefixReuse reuse_;
  int with_segments_ = -1;  // -1 until the first request
  std::vector<uint32_t> run_ends_;
  std::vector<uint64_t> sequence_;  // prompt then output blocks, when outputs are cached
  std::vector<uint32_t> prompt_lengths_, output_lengths_;
  std::vector<uint64_t> key_counts_;
  uint64_t prompt_total_ = 0, ideal_hit_tokens_ = 0;
  std::vector<uint64_t> lru_hit_tokens_, window_tokens_;
  sim::Time first_ = 0, last_ = 0;
  double gap_sum_ = 0, gap_sum_sq_ = 0;
};

// Prints the statistics, with one line reading the recency diagnostic.
void PrintWorkloadStats(const WorkloadStats& stats, const WorkloadStatsOptions& options,
                        std::ostream& out);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_WORKLOAD_STATS_H_
