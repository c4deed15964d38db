#include "models/workload.h"

#include <cmath>

#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr uint64_t kRootHash = 0x6b767261756f7465ULL;  // the empty prefix
constexpr uint64_t kKeyContentSalt = 0x53595354454d0000ULL;
constexpr uint64_t kUniqueContentSalt = 0x554e495155450000ULL;

}  // namespace

std::vector<double> ZipfShares(uint32_t keys, double s) {
  std::vector<double> shares(keys);
  double total = 0;
  for (uint32_t k = 0; k < keys; ++k) total += shares[k] = std::pow(k + 1.0, -s);
  for (double& share : shares) share /= total;
  return shares;
}

WorkloadGenerator::WorkloadGenerator(const WorkloadConfig& config, uint64_t seed, double qps,
                                     sim::Time end)
    : config_(config),
      qps_(qps),
      end_(end),
      shares_(ZipfShares(config.keys, config.zipf_s)),
      key_table_(shares_),
      arrival_rng_(seed, "workload.arrivals"),
      key_rng_(seed, "workload.keys"),
      length_rng_(seed, "workload.lengths") {}

bool WorkloadGenerator::Next(Request* out) {
  unit_time_ += arrival_rng_.Exponential(1.0);
  sim::Time arrival = sim::FromSeconds(unit_time_ / qps_);
  if (arrival >= end_) return false;

  out->id = next_id_++;
  out->arrival = arrival;
  out->key = key_table_.Draw(key_rng_);
  out->tenant = out->key;
  out->session = out->id;
  uint32_t unique_tokens = config_.new_tokens.Draw(length_rng_);
  out->output_tokens = std::max<uint32_t>(1, config_.output_tokens.Draw(length_rng_));
  out->prompt_tokens = std::max<uint32_t>(1, config_.system_tokens + unique_tokens);

  // Blocks wholly inside the system prompt are the key's; every later block
  // (including one straddling the boundary) is this request's own.
  const uint32_t bs = static_cast<uint32_t>(config_.block_size_tokens);
  uint32_t full_blocks = out->prompt_tokens / bs;
  uint32_t shared_blocks = config_.system_tokens / bs;
  out->block_hashes.clear();
  uint64_t hash = kRootHash;
  uint64_t key_salt = sim::Combine(kKeyContentSalt, out->key);
  uint64_t own_salt = sim::Combine(kUniqueContentSalt, out->id);
  for (uint32_t j = 0; j < full_blocks; ++j) {
    uint64_t content = sim::Combine(j < shared_blocks ? key_salt : own_salt, j);
    hash = sim::ChainBlockHash(hash, content);
    out->block_hashes.push_back(hash);
  }
  return true;
}

}  // namespace kvroute::models
