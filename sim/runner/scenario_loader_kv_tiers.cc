// `cluster.kv_tiers`: a host-memory KV tier below each replica's HBM prefix
// cache, and optionally a local-SSD tier below that (models/kv_tier.h).
// Absent, replicas have HBM only, exactly as before.
#include <cmath>
#include <string>

#include "models/kv_tier.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMaxTierBlocks = 1 << 27;  // as cluster.kv_blocks

// `gib` (the value of `key`) in whole KV blocks of the profile.
uint32_t TierBlocks(const YamlMap& m, const std::string& key, double gib,
                    const models::Profile& p) {
  const int block_tokens = p.ResolvedEngine().block_size_tokens;
  const double bytes_per_block = p.KvBytesPerToken() * block_tokens;
  const double blocks = std::floor(gib * kGiB / bytes_per_block);
  if (blocks < 1) {
    m.Fail(key, "holds no KV block: a block of " + std::to_string(block_tokens) + " tokens takes " +
                    FormatYamlNumber(bytes_per_block / (1 << 20)) + " MiB on this profile");
  }
  if (blocks > kMaxTierBlocks) {
    m.Fail(key, "holds " + FormatYamlNumber(blocks) + " KV blocks, more than the " +
                    FormatYamlNumber(kMaxTierBlocks) + " a tier may have");
  }
  return static_cast<uint32_t>(blocks);
}

models::KvTierConfig TierConfig(uint32_t blocks, double gb_per_s_per_gpu, double latency_us,
                                const Scenario& s) {
  const models::Profile& p = s.resolved_profile;
  models::KvTierConfig c;
  c.capacity_blocks = blocks;
  c.bytes_per_block = p.KvBytesPerToken() * p.ResolvedEngine().block_size_tokens;
  c.bandwidth_bytes_per_s = gb_per_s_per_gpu * 1e9 * p.tensor_parallel;
  c.latency = sim::FromSeconds(latency_us * 1e-6);
  c.offload = s.kv_tiers.offload;
  return c;
}

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
                 "on_evict: a block evicted from HBM is copied to DRAM, and one DRAM drops to "
                 "SSD (vLLM's OffloadingConnector; HiCache write_back); write_through: every "
                 "full block is copied to each tier when cached (LMCache, HiCache "
                 "write_through)"),
       NumberKey("ssd_gib", 0, 0, 1e6,
                 "local SSD for each replica's KV blocks below DRAM, GiB, all its GPUs together "
                 "(Dynamo KVBM's disk tier, LMCache's max_local_disk_size); needs dram_gib > 0; "
                 "0: no SSD tier"),
       NumberKey("ssd_bandwidth_gb_per_s", d.ssd_bandwidth_gb_per_s, 1e-3, 1e5,
                 "SSD read rate for each GPU's share, GB/s (1e9 bytes); assumption: one PCIe "
                 "Gen4 NVMe drive per GPU at its 7 GB/s sequential read (Samsung PM1733)"),
       NumberKey("ssd_latency_us", d.ssd_latency_us, 0, 1e7,
                 "fixed cost of one SSD read, us, before the host-to-GPU copy (assumption)")}};
  return table;
}

void ParseKvTiers(YamlMap& cluster, Scenario* s) {
  if (!cluster.Take("kv_tiers").IsDefined()) return;
  YamlMap m = cluster.Map("kv_tiers", &KvTierKeys());
  // An SSD key without ssd_gib would be silently ignored: say so instead.
  const bool ssd_given = m.node()["ssd_gib"].IsDefined();
  for (const char* key : {"ssd_bandwidth_gb_per_s", "ssd_latency_us"}) {
    if (!ssd_given && m.node()[key].IsDefined()) {
      m.Fail(key, "is set but ssd_gib is not: there is no SSD tier to apply it to");
    }
  }
  KvTierSpec& spec = s->kv_tiers;
  spec.dram_gib = m.Number("dram_gib");
  spec.dram_bandwidth_gb_per_s = m.Number("dram_bandwidth_gb_per_s");
  spec.dram_latency_us = m.Number("dram_latency_us");
  spec.offload = m.Choice("offload", OffloadRules());
  spec.ssd_gib = m.Number("ssd_gib");
  spec.ssd_bandwidth_gb_per_s = m.Number("ssd_bandwidth_gb_per_s");
  spec.ssd_latency_us = m.Number("ssd_latency_us");

  m.Finish();
  // The SSD tier is written from host memory and read back through it
  // (HiCache's L3, LMCache's disk backend; KVBM cascades G1 -> G2 -> G3;
  // models/kv_tier.h), so with no DRAM tier it has no way in or out.
  if (spec.ssd_gib > 0 && spec.dram_gib == 0) {
    m.Fail("ssd_gib",
           "needs a host tier (dram_gib > 0): SSD blocks are written from host "
           "memory and read back through it");
  }
  if (spec.dram_gib == 0) return;
  const models::Profile& p = s->resolved_profile;
  const uint32_t dram_blocks = TierBlocks(m, "dram_gib", spec.dram_gib, p);
  s->scheduler.kv_tier =
      TierConfig(dram_blocks, spec.dram_bandwidth_gb_per_s, spec.dram_latency_us, *s);
  if (spec.ssd_gib == 0) return;
  const uint32_t ssd_blocks = TierBlocks(m, "ssd_gib", spec.ssd_gib, p);
  s->scheduler.ssd_tier =
      TierConfig(ssd_blocks, spec.ssd_bandwidth_gb_per_s, spec.ssd_latency_us, *s);
}

}  // namespace kvroute::sim::scenario
