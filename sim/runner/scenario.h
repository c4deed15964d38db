// A scenario as run: cluster, workload, policies, load sweep and SLOs
// (DESIGN.md, "Scenario YAML"). Plain structs with defaults; YAML is parsed into
// them in one place, scenario_loader.cc.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/capacity.h"
#include "analysis/slo.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/workload.h"
#include "policies/registry.h"

namespace kvroute::sim {

struct PolicySpec {
  std::string name;  // the registry's name
  // How points, tables and --policies/--policy/sweep.baseline refer to this
  // entry; the name unless `label` is given, so that one policy can be listed
  // with several parameter sets (seed 003 §5.3's ablation).
  std::string label;
  std::vector<policies::ParamValue> params;  // as given; defaults fill the rest
  std::string where;                         // file:line of the entry
};

// From `at_s` on, the deployment's weight is `weight` (a canary rollout).
struct WeightStep {
  double at_s = 0;
  double weight = 0;
};

// From `at_s` on, the scaler asks for `replicas` replicas (signal: schedule).
struct ReplicaStep {
  double at_s = 0;
  uint32_t replicas = 1;
};

// A horizontal autoscaler for one deployment, as Kubernetes' HPA decides
// (sim/runner/autoscaler.h cites the source of each rule and default). The
// deployment's `replicas` is the most it may run.
// One of HPA's scaling policies (autoscaling/v2 HPAScalingPolicy): within any
// `period_s`, the count may move by at most `value` pods, or `value` percent
// of the count at the period's start.
struct ScalingPolicy {
  enum class Type { kPods, kPercent };
  Type type = Type::kPods;
  double value = 0;
  double period_s = 15;
};

// How a direction's policies combine (HPA's selectPolicy): kMax allows the
// largest change any policy allows, kMin the smallest, kDisabled none.
enum class ScalingSelect { kMax, kMin, kDisabled };

struct AutoscaleSpec {
  // kWaiting: requests queued per serving replica (vLLM's num_requests_waiting);
  // kKvUse: KV-pool use per serving replica, 0..1 (vLLM's kv_cache_usage_perc);
  // kTtft: the `quantile` of the TTFTs of the first tokens the deployment
  // produced in the last `window_s` (vLLM's time_to_first_token_seconds
  // histogram, as a Prometheus histogram_quantile over a range);
  // kSchedule: `schedule`'s counts at their times.
  enum class Signal { kWaiting, kKvUse, kTtft, kSchedule };
  Signal signal = Signal::kWaiting;
  double target = 0;       // the signal's target (per serving replica, or seconds of TTFT)
  double quantile = 0.9;   // signal kTtft
  double window_s = 60;    // signal kTtft
  double tolerance = 0.1;  // no change while |signal/target - 1| <= this
  uint32_t min_replicas = 1;
  uint32_t initial_replicas = 0;            // 0: min_replicas
  double interval_s = 15;                   // between decisions
  double scale_up_stabilization_s = 0;      // up: the least recommendation in this window
  double scale_down_stabilization_s = 300;  // down: the most recommendation in this window
  double provisioning_delay_s = 0;          // from the decision until a new replica serves
  // HPA's rate limits (pkg/apis/autoscaling/v2/defaults.go): up by 4 pods or
  // 100% per 15 s, whichever is more; down by 100% per 15 s.
  std::vector<ScalingPolicy> scale_up_policies = {{ScalingPolicy::Type::kPods, 4, 15},
                                                  {ScalingPolicy::Type::kPercent, 100, 15}};
  ScalingSelect scale_up_select = ScalingSelect::kMax;
  std::vector<ScalingPolicy> scale_down_policies = {{ScalingPolicy::Type::kPercent, 100, 15}};
  ScalingSelect scale_down_select = ScalingSelect::kMax;
  std::vector<ReplicaStep> schedule;  // signal kSchedule, at_s strictly increasing
};

// What a deployment does in a disaggregated cluster (cluster.disaggregation):
// kServe runs whole requests; kPrefill computes prompts and hands their KV to
// kDecode, which generates the output.
enum class DeploymentRole { kServe, kPrefill, kDecode };

struct DeploymentSpec {
  std::string name = "main";
  uint32_t replicas = 1;
  double weight = 1;                      // w_d until the first step of `schedule`
  std::vector<WeightStep> schedule = {};  // piecewise constant, at_s strictly increasing
  // Its own routing policy inside the deployment; none: the point's (sweep's)
  // policy, so the sweep's policy axis varies only the deployments without one.
  std::optional<PolicySpec> policy = std::nullopt;
  std::optional<AutoscaleSpec> autoscale = std::nullopt;  // none: a fixed fleet
  DeploymentRole role = DeploymentRole::kServe;
  // Its own profile (another GPU kind or tensor-parallel size serving the
  // cluster's model); none: cluster.profile.
  std::optional<models::Profile> profile = std::nullopt;
  std::string profile_ref = {};  // its built-in name or path as resolved; empty: given as a map
  // Price of one of its GPU-hours, US dollars; 0: its own profile's GPU file,
  // else the cluster's price (Scenario::UsdPerGpuHourOf).
  double usd_per_gpu_hour = 0;
  // Its routing pool: adjacent deployments with one pool name are routed
  // between by one policy instance, as one Kubernetes InferencePool selects
  // the pods of several Deployments; empty: a pool of its own.
  std::string pool = {};

  const std::string& PoolName() const { return pool.empty() ? name : pool; }
  double WeightAt(double t_s) const {
    double w = weight;
    for (const WeightStep& step : schedule) {
      if (step.at_s <= t_s) w = step.weight;
    }
    return w;
  }
};

// A routing pool: deployments [first, first + count), adjacent, whose
// replicas [offset, offset + replicas) one policy routes between. Requests
// choose a pool first (by weight, the sum of its deployments'), then a
// replica in it. Without pool keys, every deployment is its own pool.
struct RoutingPool {
  std::string name;
  uint32_t first = 0, count = 0;
  uint32_t offset = 0, replicas = 0;
};

// A replica fails at `at_s` and, if recover_after_s > 0, comes back that much
// later with an empty cache.
struct FailureEvent {
  uint32_t replica = 0;
  double at_s = 0;
  double recover_after_s = 0;
};

// cluster.kv_events: routers that index the engines' KV events (the policies
// whose registry entry names kv_event_view) see each replica's cache through
// events that arrive late and may be lost (stale_cache_view.h).
struct KvEventsSpec {
  bool enabled = false;  // absent: those routers read the exact caches
  double delay_s = 0;    // from a cache change to the router seeing it, s
  double loss = 0;       // probability that an event never arrives, 0..1
};

// cluster.kv_tiers as written (scenario_loader_kv_tiers.cc); what the replicas
// get from it is Scenario::scheduler.kv_tier and .ssd_tier.
struct KvTierSpec {
  double dram_gib = 0;                                          // per replica; 0: no host tier
  double dram_bandwidth_gb_per_s = models::kDefaultHostGbPerS;  // per GPU
  double dram_latency_us = models::kDefaultHostLatencyUs;
  models::OffloadRule offload = models::OffloadRule::kOnEvict;
  double ssd_gib = 0;                                         // per replica; 0: no SSD tier
  double ssd_bandwidth_gb_per_s = models::kDefaultSsdGbPerS;  // per GPU
  double ssd_latency_us = models::kDefaultSsdLatencyUs;
};

// cluster.disaggregation: prefill/decode disaggregation (pd_router.h). Every
// request is routed to a decode replica first, by the decode deployment's
// policy (llm-d's pd-profile-handler runs its decode profile first); the
// decider then says whether its prompt is prefilled on a prefill replica,
// chosen by the prefill deployment's policy, or on the decode replica itself.
struct DisaggregationSpec {
  // kAlways: every prompt goes to the prefill pool (SGLang's PD router,
  // llm-d's always-disagg-decider). kThreshold: only when the decode replica
  // lacks at least threshold_tokens of the prompt (llm-d's
  // prefix-based-pd-decider, nonCachedTokens). kDecodeFirst: only when the
  // decode replica lacks a full block of the prompt's cacheable prefix.
  enum class Decider { kAlways, kThreshold, kDecodeFirst };
  bool enabled = false;
  Decider decider = Decider::kAlways;
  uint32_t threshold_tokens = 0;
  // Every GPU has one network interface for KV transfers; a replica's
  // bandwidth is its GPUs' sum. 50 GB/s: one 400 Gb/s InfiniBand NDR
  // ConnectX-7 port per GPU, as in NVIDIA's DGX H100 reference design (an
  // assumption: pools are often linked by slower Ethernet).
  double link_gb_per_s = 50;
  double link_latency_us = 10;  // per transfer: RDMA set-up and completion (assumption)
};

struct Scenario {
  std::string name;
  std::string source;       // the file it came from, or "built-in quickstart"
  std::string yaml;         // the full scenario text as run, overrides applied
  uint64_t seed = 1;        // first paired seed; the others follow it
  uint32_t seeds = 1;       // paired seeds
  double duration_s = 300;  // arrivals stop here
  double warmup_s = 30;     // requests arriving earlier are not measured
  double drain_s = 120;     // after duration_s, how long in-flight work may finish

  std::string profile = "h100-llama3.1-8b-bf16";  // a built-in name or a .yaml path
  models::Profile resolved_profile;               // read once when the scenario loads
  bool profile_inline = false;                    // written as a map in the scenario
  std::vector<DeploymentSpec> deployments;
  models::SchedulerConfig scheduler;
  int64_t kv_blocks = 0;  // 0: derived from the profile
  KvTierSpec kv_tiers;
  // 0: the profile's roofline model. Otherwise every iteration takes this long
  // whatever its batch: with max_num_seqs 1 a replica is an M/G/1 queue, used
  // to validate the engine against queueing theory.
  double fixed_iteration_s = 0;
  // How often the router's copy of the load signals is refreshed, seconds;
  // 0 means policies see live signals. Real routers poll (SGLang every 10 s).
  double signal_refresh_s = 0;
  KvEventsSpec kv_events;
  DisaggregationSpec disaggregation;
  // Two-level routing across deployments (seed 000): a request picks
  // deployment d with P_d ∝ w_d·2^(lambda_h·H_d), then a replica in d. Unused
  // with one deployment.
  double lambda_h = 0;
  // With lambda_q > 0 the deployment's load enters the split (seed 000 asks
  // for it, without a formula): P_d ∝ w_d·2^(lambda_h·H_d − lambda_q·Q_d), Q_d
  // the requests waiting per serving replica of d.
  double lambda_q = 0;
  // Where H_d comes from. kExact: the replicas' caches (seed 000's scheduler
  // reads the engines' cache reports, as FlexLB's master does). kRouter: the
  // router's own record of the prompts it sent to d, an LRU of d's total KV
  // blocks, blind to evictions and to caches lost in failures.
  enum class HitEstimate { kExact, kRouter };
  HitEstimate deployment_hit_estimate = HitEstimate::kExact;
  double series_interval_s = 10;  // bucket of the per-deployment time series, s
  // Price of one GPU-hour, US dollars; 0: the GPU file's (models/gpus/*.yaml).
  double usd_per_gpu_hour = 0;

  models::WorkloadConfig workload;
  std::vector<PolicySpec> policies;
  std::vector<double> qps;   // the load grid, ascending
  double reference_qps = 0;  // common load for the table; 0 means the middle of the grid
  // Bisection refines each capacity between its last passing and first failing
  // load until they are at most this far apart, QPS; 0: the grid only.
  double precision_qps = 0;
  // ... or until they are at most this share of their lower end, whichever is
  // wider (0.02: within 2%); 0: precision_qps alone.
  double precision_share = 0;
  analysis::BisectionPrecision Precision() const { return {precision_qps, precision_share}; }
  // Capacities are also reported as a ratio to this policy's, paired by seed;
  // empty: no ratio.
  std::string baseline;
  std::vector<analysis::Slo> slos;
  std::vector<FailureEvent> failures;
  uint32_t retry_limit = 1;  // re-routings a request gets after replica failures
  // Not a scenario key: `kvroute run --requests DIR` writes each point's
  // per-request CSV there (request_csv_files.h); empty: none.
  std::string requests_dir;

  uint32_t replica_count() const {
    uint32_t n = 0;
    for (const DeploymentSpec& d : deployments) n += d.replicas;
    return n;
  }
  std::vector<uint64_t> SeedList() const;
  // What deployment d's replicas run: its own profile, else the cluster's;
  // the engine settings that profile resolves to; and its KV pool in blocks.
  const models::Profile& ProfileOf(size_t d) const {
    return deployments[d].profile ? *deployments[d].profile : resolved_profile;
  }
  models::SchedulerConfig SchedulerOf(size_t d) const;
  uint32_t KvBlocksOf(size_t d) const;
  // The routing pools, in deployment order.
  std::vector<RoutingPool> Pools() const {
    std::vector<RoutingPool> pools;
    uint32_t offset = 0;
    for (uint32_t d = 0; d < deployments.size(); ++d) {
      const DeploymentSpec& spec = deployments[d];
      if (pools.empty() || pools.back().name != spec.PoolName()) {
        pools.push_back({spec.PoolName(), d, 0, offset, 0});
      }
      ++pools.back().count;
      pools.back().replicas += spec.replicas;
      offset += spec.replicas;
    }
    return pools;
  }
  // Pool p's weight at t_s: its deployments' weights summed.
  double PoolWeightAt(const RoutingPool& p, double t_s) const {
    double w = 0;
    for (uint32_t d = p.first; d < p.first + p.count; ++d) w += deployments[d].WeightAt(t_s);
    return w;
  }
  bool MixedProfiles() const {
    for (const DeploymentSpec& d : deployments) {
      if (d.profile) return true;
    }
    return false;
  }
  // The price of one GPU-hour the cost reports use: cluster.usd_per_gpu_hour,
  // else the GPU file's; 0 when neither gives one.
  double UsdPerGpuHour() const {
    return usd_per_gpu_hour > 0 ? usd_per_gpu_hour : resolved_profile.gpu.usd_per_gpu_hour;
  }
  // Deployment d's price: its own usd_per_gpu_hour, else its own profile's
  // GPU file's, else the cluster's.
  double UsdPerGpuHourOf(size_t d) const {
    const DeploymentSpec& spec = deployments[d];
    if (spec.usd_per_gpu_hour > 0) return spec.usd_per_gpu_hour;
    return spec.profile ? spec.profile->gpu.usd_per_gpu_hour : UsdPerGpuHour();
  }
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_H_
