// The `cluster` section of a resolved scenario (scenario_printer.h).
#include "models/dtype.h"
#include "sim/runner/scenario_loader_internal.h"
#include "sim/runner/scenario_printer_internal.h"

namespace kvroute::sim::printer {
namespace {

// A profile as written: its name or path, else the map it was given as.
YAML::Node Profile(const models::Profile& p, const std::string& written) {
  if (!written.empty()) return YAML::Node(written);
  YAML::Node profile;
  profile["model"] = p.model_ref;
  profile["gpu"] = p.gpu_ref;
  profile["tensor_parallel"] = Num(p.tensor_parallel);
  profile["weight_dtype"] = models::DtypeName(p.weight_dtype);
  profile["kv_dtype"] = models::DtypeName(p.kv_dtype);
  return Flow(profile);
}

// A schedule as a list of {at_s, <key>: value} flow maps.
template <typename Step, typename ValueOf>
YAML::Node TimedSteps(const std::vector<Step>& steps, const char* key, ValueOf value_of) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const Step& s : steps) {
    YAML::Node step;
    step["at_s"] = Num(s.at_s);
    step[key] = Num(value_of(s));
    list.push_back(Flow(step));
  }
  return list;
}

YAML::Node Autoscale(const AutoscaleSpec& a) {
  YAML::Node n;
  n["signal"] = scenario::AutoscaleSignals().NameOf(a.signal);
  if (a.signal != AutoscaleSpec::Signal::kSchedule) n["target"] = Num(a.target);
  n["tolerance"] = Num(a.tolerance);
  n["min_replicas"] = Num(a.min_replicas);
  n["initial_replicas"] = Num(a.initial_replicas);
  n["interval_s"] = Num(a.interval_s);
  n["scale_up_stabilization_s"] = Num(a.scale_up_stabilization_s);
  n["scale_down_stabilization_s"] = Num(a.scale_down_stabilization_s);
  n["provisioning_delay_s"] = Num(a.provisioning_delay_s);
  if (a.signal == AutoscaleSpec::Signal::kTtft) {
    n["quantile"] = Num(a.quantile);
    n["window_s"] = Num(a.window_s);
  }
  if (a.signal != AutoscaleSpec::Signal::kSchedule) {
    auto policies = [](const std::vector<ScalingPolicy>& list) {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const ScalingPolicy& p : list) {
        YAML::Node entry;
        entry["type"] = scenario::ScalingPolicyTypes().NameOf(p.type);
        entry["value"] = Num(p.value);
        entry["period_s"] = Num(p.period_s);
        out.push_back(Flow(entry));
      }
      return out;
    };
    n["scale_up_policies"] = policies(a.scale_up_policies);
    n["scale_up_select"] = scenario::ScalingSelects().NameOf(a.scale_up_select);
    n["scale_down_policies"] = policies(a.scale_down_policies);
    n["scale_down_select"] = scenario::ScalingSelects().NameOf(a.scale_down_select);
  }
  if (!a.schedule.empty()) {
    n["schedule"] =
        TimedSteps(a.schedule, "replicas", [](const ReplicaStep& r) { return r.replicas; });
  }
  return Flow(n);
}

}  // namespace

YAML::Node Cluster(const Scenario& s) {
  YAML::Node c;
  c["profile"] = Profile(s.resolved_profile, s.profile_inline ? "" : s.profile);
  YAML::Node deployments(YAML::NodeType::Sequence);
  for (const DeploymentSpec& d : s.deployments) {
    YAML::Node n;
    n["name"] = d.name;
    n["replicas"] = Num(d.replicas);
    if (d.role != DeploymentRole::kServe) n["role"] = scenario::DeploymentRoles().NameOf(d.role);
    if (d.profile) n["profile"] = Profile(*d.profile, d.profile_ref);
    if (d.usd_per_gpu_hour > 0) n["usd_per_gpu_hour"] = Num(d.usd_per_gpu_hour);
    if (!d.pool.empty()) n["pool"] = d.pool;
    n["weight"] = Num(d.weight);
    if (!d.schedule.empty()) {
      n["schedule"] =
          TimedSteps(d.schedule, "weight", [](const WeightStep& w) { return w.weight; });
    }
    if (d.policy) n["policy"] = Policy(*d.policy);
    if (d.autoscale) n["autoscale"] = Autoscale(*d.autoscale);
    deployments.push_back(Flow(n));
  }
  c["deployments"] = deployments;
  const models::EngineSettings e = s.resolved_profile.ResolvedEngine();
  YAML::Node engine;
  engine["entry_point"] = scenario::EntryPoints().NameOf(e.entry_point);
  // With several GPU kinds, a default that vLLM picks per GPU stays unwritten
  // so that each deployment resolves it on its own GPU again.
  const models::EngineSettings& given = s.resolved_profile.engine;
  const bool per_gpu = s.MixedProfiles();
  if (!per_gpu || given.max_num_seqs != 0) engine["max_num_seqs"] = Num(e.max_num_seqs);
  if (!per_gpu || given.max_num_batched_tokens != 0) {
    engine["max_num_batched_tokens"] = Num(e.max_num_batched_tokens);
  }
  engine["gpu_memory_utilization"] = Num(e.gpu_memory_utilization);
  engine["block_size_tokens"] = Num(e.block_size_tokens);
  engine["cache_generated_tokens"] = e.cache_generated_tokens;
  engine["async_scheduling"] = e.async_scheduling;
  if (e.cudagraph_max_tokens < 0) {
    engine["enforce_eager"] = true;
  } else if (!per_gpu || given.cudagraph_max_tokens != 0) {
    engine["cudagraph_max_tokens"] = Num(e.cudagraph_max_tokens);
  }
  engine["cpu_offload_gb"] = Num(e.cpu_offload_bytes / (1 << 30));
  c["engine"] = Flow(engine);
  // Derived per profile, it stays unwritten when the profiles differ.
  if (!per_gpu || s.kv_blocks > 0) {
    c["kv_blocks"] = Num(
        static_cast<double>(s.kv_blocks > 0 ? s.kv_blocks : s.resolved_profile.KvCapacityBlocks()));
  }
  c["eviction"] = scenario::EvictionOrders().NameOf(s.scheduler.eviction);
  if (s.kv_tiers.dram_gib > 0) {
    YAML::Node tiers;
    tiers["dram_gib"] = Num(s.kv_tiers.dram_gib);
    tiers["dram_bandwidth_gb_per_s"] = Num(s.kv_tiers.dram_bandwidth_gb_per_s);
    tiers["dram_latency_us"] = Num(s.kv_tiers.dram_latency_us);
    tiers["offload"] = scenario::OffloadRules().NameOf(s.kv_tiers.offload);
    if (s.kv_tiers.ssd_gib > 0) {
      tiers["ssd_gib"] = Num(s.kv_tiers.ssd_gib);
      tiers["ssd_bandwidth_gb_per_s"] = Num(s.kv_tiers.ssd_bandwidth_gb_per_s);
      tiers["ssd_latency_us"] = Num(s.kv_tiers.ssd_latency_us);
    }
    c["kv_tiers"] = Flow(tiers);
  }
  YAML::Node cost;
  if (s.fixed_iteration_s > 0) {
    cost["kind"] = scenario::CostModelKinds().NameOf(scenario::CostModelKind::kFixed);
    cost["iteration_s"] = Num(s.fixed_iteration_s);
  } else {
    cost["kind"] = scenario::CostModelKinds().NameOf(scenario::CostModelKind::kRoofline);
  }
  c["cost_model"] = Flow(cost);
  c["signal_refresh_s"] = Num(s.signal_refresh_s);
  if (s.kv_events.enabled) {
    YAML::Node events;
    events["delay_s"] = Num(s.kv_events.delay_s);
    events["loss"] = Num(s.kv_events.loss);
    c["kv_events"] = Flow(events);
  }
  if (s.disaggregation.enabled) {
    const DisaggregationSpec& pd = s.disaggregation;
    YAML::Node n;
    n["decider"] = scenario::DisaggregationDeciders().NameOf(pd.decider);
    if (pd.decider == DisaggregationSpec::Decider::kThreshold) {
      n["threshold_tokens"] = Num(pd.threshold_tokens);
    }
    n["link_gb_per_s"] = Num(pd.link_gb_per_s);
    n["link_latency_us"] = Num(pd.link_latency_us);
    c["disaggregation"] = Flow(n);
  }
  c["lambda_h"] = Num(s.lambda_h);
  c["lambda_q"] = Num(s.lambda_q);
  c["deployment_hit_estimate"] = scenario::HitEstimates().NameOf(s.deployment_hit_estimate);
  c["series_interval_s"] = Num(s.series_interval_s);
  c["usd_per_gpu_hour"] = Num(s.UsdPerGpuHour());
  return c;
}

}  // namespace kvroute::sim::printer
