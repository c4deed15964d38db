// `cluster.kv_tiers`: a host-memory KV tier below each replica's HBM prefix
// cache (models/kv_tier.h). Absent, replicas have HBM only, exactly as before.
#include <cmath>
#include <string>

#include "models/kv_tier.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMaxTierBlocks = 1 << 27;  // as cluster.kv_blocks

}  // namespace

const ChoiceTable<models::OffloadRule>& OffloadRules() {
  static const ChoiceTable<models::OffloadRule> table(
      "offload rule", {{"on_evict", models::OffloadRule::kOnEvict},
                       {"write_through", models::OffloadRule::kWriteThrough}});
  return table;
}

const YamlKeyTable& KvTierKeys() {
  static const KvTierSpec d;
  static const YamlKeyTable table{
      "cluster.kv_tiers",
      {NumberKey("dram_gib", 0, 0, 1e6,
                 "host memory for each replica's KV blocks, GiB, all its GPUs together "
                 "(vLLM's --kv-offloading-size); 0: no host tier, as if kv_tiers were absent")
           .Required(),
       NumberKey("dram_bandwidth_gb_per_s", d.dram_bandwidth_gb_per_s, 1e-3, 1e5,
                 "host-to-GPU copy rate of each GPU's link, GB/s (1e9 bytes); assumption: "
                 "PCIe Gen5 x16 at 80% of its 63 GB/s"),
       NumberKey("dram_latency_us", d.dram_latency_us, 0, 1e7,
                 "fixed cost of one load transfer, us (assumption)"),
       ChoiceKey("offload", OffloadRules().names(), OffloadRules().NameOf(d.offload),
                 "on_evict: a block evicted from HBM is copied to DRAM (vLLM's "
                 "OffloadingConnector); write_through: every full block is copied when cached "
                 "(LMCache, HiCache write_through)")}};
  return table;
}

void ParseKvTiers(YamlMap& cluster, Scenario* s) {
  if (!cluster.Take("kv_tiers").IsDefined()) return;
  YamlMap m = cluster.Map("kv_tiers", &KvTierKeys());
  KvTierSpec& spec = s->kv_tiers;
  spec.dram_gib = m.Number("dram_gib");
  spec.dram_bandwidth_gb_per_s = m.Number("dram_bandwidth_gb_per_s");
  spec.dram_latency_us = m.Number("dram_latency_us");
  spec.offload = m.Choice("offload", OffloadRules());

  m.Finish();
  if (spec.dram_gib == 0) return;
  const models::Profile& p = s->resolved_profile;
  const int block_tokens = p.ResolvedEngine().block_size_tokens;
  const double bytes_per_block = p.KvBytesPerToken() * block_tokens;
  const double blocks = std::floor(spec.dram_gib * kGiB / bytes_per_block);
  if (blocks < 1) {
    m.Fail("dram_gib", "holds no KV block: a block of " + std::to_string(block_tokens) +
                           " tokens takes " + FormatYamlNumber(bytes_per_block / (1 << 20)) +
                           " MiB on this profile");
  }
  if (blocks > kMaxTierBlocks) {
    m.Fail("dram_gib", "holds " + FormatYamlNumber(blocks) + " KV blocks, more than the " +
                           FormatYamlNumber(kMaxTierBlocks) + " a tier may have");
  }
  models::KvTierConfig& c = s->scheduler.kv_tier;
  c.capacity_blocks = static_cast<uint32_t>(blocks);
  c.bytes_per_block = bytes_per_block;
  c.bandwidth_bytes_per_s = spec.dram_bandwidth_gb_per_s * 1e9 * p.tensor_parallel;
  c.latency = sim::FromSeconds(spec.dram_latency_us * 1e-6);
  c.offload = spec.offload;
}

}  // namespace kvroute::sim::scenario
