// What one simulated (policy, load, seed) point measured (DESIGN.md, "Metrics"),
// and the collector that streams it from request events. Latencies count only
// requests that arrived after the warm-up; requests still unfinished when the
// run ends count as censored (slower than any finished one) in TTFT and E2E,
// and are left out of TPOT, which they never completed.
#ifndef KVROUTE_ANALYSIS_POINT_METRICS_H_
#define KVROUTE_ANALYSIS_POINT_METRICS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/latency_histogram.h"
#include "analysis/slo.h"
#include "analysis/time_series.h"
#include "models/request.h"
#include "sim/core/time.h"

namespace kvroute::analysis {

struct LatencySummary {
  double p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;  // seconds
};

// One bucket of one deployment's time series (two-level routing, seed 000):
// requests that arrived in [start_s, start_s + series_interval_s) and went to
// the deployment, and their prompt and cache-hit tokens at first admission.
// The series spans the whole run, warm-up included.
struct DeploymentSample {
  double start_s = 0;
  uint32_t deployment = 0;  // index into PointResult::deployment_names
  uint64_t requests = 0;
  uint64_t prompt_tokens = 0;
  uint64_t hit_tokens = 0;
  // Requests of the bucket whose prompt was wholly cached in another
  // deployment (hit ratio 1 there; known only with lambda_h > 0), and how
  // many of them this deployment took; then the same for those of them with
  // nothing cached here (hit ratio 0), the seed's worked case.
  uint64_t hit_elsewhere = 0;
  uint64_t hit_elsewhere_taken = 0;
  uint64_t cold_hit_elsewhere = 0;
  uint64_t cold_hit_elsewhere_taken = 0;
};

// part / whole, NaN when whole is 0 (a hit rate or share with no data).
inline double ShareOrNaN(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : std::nan("");
}

// TTFT of one tenant, or of every tenant not tracked on its own ("other").
struct TenantLatency {
  std::string tenant;     // the tenant id, or "other"
  uint64_t measured = 0;  // requests that arrived after the warm-up
  double ttft_p99 = 0;    // seconds; +inf if censored, NaN if none
};

// An autoscaler's change to a deployment (issue 15): from `at_s`, it asks for
// `requested` replicas, of which `serving` take requests (the rest are being
// provisioned); `billed` also counts replicas draining their last requests.
struct FleetChange {
  double at_s = 0;
  uint32_t deployment = 0;
  uint32_t requested = 0;
  uint32_t serving = 0;
  uint32_t billed = 0;
};

struct PointResult {
  std::string policy;
  double qps = 0;
  uint64_t seed = 0;
  uint32_t refinement_round = 0;  // 0: a grid load; r: added by bisection round r

  uint64_t offered = 0;     // requests that arrived (whole run)
  uint64_t completed = 0;   // of those, finished
  uint64_t unfinished = 0;  // still queued or running when the run ended
  uint64_t rejected = 0;    // could never fit a replica's KV pool
  uint64_t failed = 0;      // lost to replica failures beyond the retry limit, or no replica up
  uint64_t retried = 0;     // re-routings after a replica failure
  uint64_t measured = 0;    // arrived after the warm-up

  LatencySummary ttft, tpot, e2e;
  std::vector<double> slo_values;  // the scenario's SLO metrics, in order, seconds

  double token_hit_rate = 0;    // Σ served hit tokens / Σ prompt tokens, admitted after warm-up
  double request_hit_rate = 0;  // share of those requests that hit at least one block
  uint64_t prefill_tokens_computed = 0;  // whole run, all replicas
  uint64_t cache_evictions = 0;          // whole run, all replicas
  // token_hit_rate split by the tier the hit came from (docs/KV_TIERS.md).
  double hbm_token_hit_rate = 0;
  double dram_token_hit_rate = 0;
  double ssd_token_hit_rate = 0;
  // The host-memory tier, whole run, all replicas; 0 without one.
  double kv_offload_bytes = 0;  // copied HBM -> DRAM
  double kv_load_bytes = 0;     // copied DRAM -> HBM (with what SSD sent through DRAM)
  double kv_load_s = 0;         // time iterations waited for loads (both tiers), all replicas
  uint64_t dram_dropped_blocks = 0;
  // The local-SSD tier below it, likewise; 0 without one.
  double ssd_store_bytes = 0;  // written DRAM -> SSD
  double ssd_load_bytes = 0;   // read SSD -> DRAM at loads
  double ssd_load_s = 0;       // of kv_load_s, the SSD reads
  uint64_t ssd_dropped_blocks = 0;
  uint64_t preemptions = 0;  // by recompute; whole run, all replicas
  uint64_t replica_failures = 0;
  // Routers reading cluster.kv_events' delayed view, whole run: (question,
  // replica) pairs asked, and how their believed prefix compared with the real.
  uint64_t kv_view_lookups = 0;
  uint64_t kv_view_overestimated = 0;   // believed longer than cached
  uint64_t kv_view_underestimated = 0;  // believed shorter
  uint64_t kv_view_error_blocks = 0;    // sum of |believed - cached| blocks
  double mean_in_system = 0;  // time-average requests in flight, warm-up to end of arrivals
  // Time-average KV blocks pinned or reserved by running requests, per replica:
  // the working set that cached prefixes cannot use.
  double mean_held_kv_blocks = 0;

  std::vector<uint64_t> replica_requests;  // dispatched after warm-up, per replica
  double imbalance = 0;                    // max/mean of replica_requests

  // Per-tenant TTFT p99 for the tenants with the most expected traffic, then
  // "other": a histogram per tracked tenant keeps memory bounded whatever the
  // number of tenants.
  std::vector<TenantLatency> tenants;
  // Jain's fairness index (Σx)²/(n·Σx²) over every tenant's mean TTFT of its
  // finished measured requests: 1 when all tenants wait alike, 1/n at worst.
  double tenant_fairness = 0;

  std::vector<std::pair<std::string, double>> policy_stats;
  // With several deployments: their names and the time series, bucket-major.
  std::vector<std::string> deployment_names;
  std::vector<DeploymentSample> deployment_series;
  std::vector<SeriesSample> series;  // the whole cluster, one per bucket
  // Every change an autoscaler made, in time order (/fleet_changes; totals in
  // policy_stats).
  std::vector<FleetChange> fleet_changes;
  double simulated_s = 0;  // simulated time at the end of the run
  uint64_t events = 0;     // events the simulation handled
};

// Requests of every deployment in the bucket of p.deployment_series[j] (the
// series holds each bucket's deployments next to one another).
inline uint64_t BucketRequests(const PointResult& p, size_t j) {
  const size_t count = p.deployment_names.size();
  if (count == 0) return p.deployment_series[j].requests;
  const size_t first = j - j % count;
  const size_t end = std::min(first + count, p.deployment_series.size());
  uint64_t requests = 0;
  for (size_t k = first; k < end; ++k) requests += p.deployment_series[k].requests;
  return requests;
}

class PointMetricsCollector {
 public:
  // `tracked_tenants` get a TTFT histogram each; the rest share one.
  PointMetricsCollector(sim::Time warmup, uint32_t replicas, std::vector<Slo> slos,
                        std::vector<uint32_t> tracked_tenants = {});

  void OnArrival(const models::Request& request);
  void OnRejected(const models::Request& request);
  // Given up after replica failures: counted, and censored in TTFT and E2E.
  void OnFailed(const models::Request& request);
  void OnRetried(const models::Request& request);
  void OnDispatched(const models::Request& request, uint32_t replica);
  // Imbalance is max/mean over replicas [first, first + count) only (a
  // disaggregated cluster's decode pool, where every request is counted);
  // by default over every replica.
  void BalanceOver(uint32_t first, uint32_t count) {
    balance_first_ = first;
    balance_count_ = count;
  }
  void OnAdmitted(const models::InFlightRequest& r);  // the served hit is known here
  void OnCompleted(const models::InFlightRequest& r, sim::Time now);
  // A request in flight when the run stopped.
  void OnUnfinished(const models::InFlightRequest& r);

  // Fills the latency, hit and balance fields of `out`.
  void Summarize(PointResult* out) const;

 private:
  bool Measured(const models::Request& request) const { return request.arrival >= warmup_; }
  // The histogram of the request's tenant: a tracked one or "other".
  LatencyHistogram& TenantHistogram(uint32_t tenant);
  void RecordTenantTtft(uint32_t tenant, sim::Time ttft);

  sim::Time warmup_;
  std::vector<Slo> slos_;
  LatencyHistogram ttft_, tpot_, e2e_;
  uint64_t offered_ = 0, completed_ = 0, unfinished_ = 0, rejected_ = 0, measured_ = 0;
  uint64_t failed_ = 0, retried_ = 0;
  uint64_t admitted_measured_ = 0, admitted_with_hit_ = 0;
  double prompt_tokens_ = 0, hit_tokens_ = 0, host_hit_tokens_ = 0, ssd_hit_tokens_ = 0;
  std::vector<uint64_t> replica_requests_;
  uint32_t balance_first_ = 0, balance_count_ = UINT32_MAX;
  std::vector<uint32_t> tracked_tenants_;
  std::vector<LatencyHistogram> tenant_ttft_;  // tracked tenants in order, then "other"
  std::vector<uint64_t> tenant_measured_;      // same order
  // Indexed by tenant id: sum and count of finished measured TTFTs.
  std::vector<double> tenant_ttft_sum_;
  std::vector<uint64_t> tenant_ttft_count_;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_POINT_METRICS_H_
