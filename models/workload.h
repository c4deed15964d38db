// The synthetic workload of the walking skeleton (DESIGN.md, "Requests"):
// N routing keys whose rates follow a Zipf law; each request of a key carries
// the key's shared system prompt followed by its own unique tokens; output
// lengths from a distribution; Poisson arrivals.
//
// The request sequence depends only on (config, seed): arrival times come from
// a unit-rate process scaled by 1/qps, and keys and lengths from their own
// streams, so every policy at every load sees the same requests.
#ifndef KVROUTE_MODELS_WORKLOAD_H_
#define KVROUTE_MODELS_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/alias_table.h"
#include "models/length_distribution.h"
#include "models/request.h"
#include "sim/core/random_stream.h"
#include "sim/core/time.h"

namespace kvroute::models {

struct WorkloadConfig {
  uint32_t keys = 1000;           // routing keys
  double zipf_s = 1.0;            // key k (0-based) has weight 1/(k+1)^s
  uint32_t system_tokens = 1024;  // shared system prompt of each key
  LengthDistribution new_tokens = LengthDistribution::Fixed(256);  // unique part of each prompt
  LengthDistribution output_tokens = LengthDistribution::Fixed(128);
  int block_size_tokens = 16;
};

// The share of traffic each key receives (sums to 1), hottest first.
std::vector<double> ZipfShares(uint32_t keys, double s);

class WorkloadGenerator {
 public:
  // Requests arrive at `qps` on average until `end` (exclusive).
  WorkloadGenerator(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end);

  // Fills `out` with the next request and returns true, or returns false when
  // the next arrival would be at or after `end`. Reuses out->block_hashes.
  bool Next(Request* out);

  const std::vector<double>& key_shares() const { return shares_; }

 private:
  WorkloadConfig config_;
  double qps_;
  sim::Time end_;
  std::vector<double> shares_;
  AliasTable key_table_;
  sim::RandomStream arrival_rng_;
  sim::RandomStream key_rng_;
  sim::RandomStream length_rng_;
  double unit_time_ = 0;  // arrival time of the unit-rate process, seconds
  uint64_t next_id_ = 0;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_WORKLOAD_H_
