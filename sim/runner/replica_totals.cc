#include "sim/runner/replica_totals.h"

namespace kvroute::sim {

void AddReplicaTotals(const models::Replica& replica, analysis::PointResult* result) {
  result->prefill_tokens_computed += replica.counters().prefill_tokens_computed;
  result->cache_evictions += replica.kv_cache().counters().evictions;
  result->preemptions += replica.counters().preemptions;
  result->replica_failures += replica.counters().failures;
  const models::HostKvTier* tier = replica.host_tier();
  if (tier == nullptr) return;
  const models::KvTierCounters& c = tier->counters();
  const double bytes_per_block = tier->config().bytes_per_block;
  // Blocks promoted from SSD were copied into DRAM, but not offloaded from HBM.
  result->kv_offload_bytes +=
      static_cast<double>(c.stored_blocks - c.promoted_blocks) * bytes_per_block;
  result->kv_load_bytes += static_cast<double>(c.loaded_blocks) * bytes_per_block;
  result->kv_load_s += ToSeconds(c.load_time);
  result->dram_dropped_blocks += c.dropped_blocks;
  const models::HostKvTier* ssd = replica.ssd_tier();
  if (ssd == nullptr) return;
  const models::KvTierCounters& d = ssd->counters();
  result->ssd_store_bytes += static_cast<double>(d.stored_blocks) * bytes_per_block;
  result->ssd_load_bytes += static_cast<double>(d.loaded_blocks) * bytes_per_block;
  result->ssd_load_s += ToSeconds(d.load_time);
  result->kv_load_s += ToSeconds(d.load_time);
  result->ssd_dropped_blocks += d.dropped_blocks;
}

}  // namespace kvroute::sim
