// The `cluster` section: profile, deployments (weights, schedules, their own
// policies), engine (scenario_loader_engine.cc), KV pool, eviction order, cost
// model and router signals.
#include <cmath>
#include <cstdio>

#include "models/profile.h"
#include "sim/core/input_file.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr uint32_t kMaxReplicas = 100'000;

// Checks a profile file the way every scenario input is checked (a regular
// file within its size limit, strict YAML) before the profile reader parses it.
void CheckProfileFile(const YamlMap& map, const std::string& path) {
  try {
    LoadStrictYaml(ReadInputFile(path, kProfileInput), path);
  } catch (const std::runtime_error& e) {
    map.Fail("profile", e.what());
  }
}

// A profile that leaves no KV room would admit no request at all.
void CheckKvRoom(const YamlMap& map, const models::Profile& p) {
  if (p.KvCapacityBlocks() > 0) return;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const models::EngineSettings e = p.ResolvedEngine();
  char text[480];
  std::snprintf(text, sizeof text,
                "profile '%s' leaves no room for the KV cache: per GPU %.1f GiB x "
                "gpu_memory_utilization %.2f - weights %.1f GiB - activations %.1f GiB - "
                "non-torch %.1f GiB = %.2f GiB for KV blocks of %d tokens x %.0f bytes; give "
                "cluster.kv_blocks, more GPUs (tensor_parallel) or a GPU with more memory",
                p.name.c_str(), p.gpu.memory_bytes / kGiB, e.gpu_memory_utilization,
                (p.WeightBytes() / p.tensor_parallel - e.cpu_offload_bytes) / kGiB,
                p.ActivationBytesPerGpu() / kGiB, e.non_torch_bytes / kGiB,
                p.KvPoolBytesPerGpu() / kGiB, e.block_size_tokens, p.KvBytesPerTokenPerGpu());
  map.Fail("profile", text);
}

// A built-in name, a profile file, or a map {model, gpu, tensor_parallel,
// weight_dtype, kv_dtype} written in the scenario, at `map`'s key "profile".
// `written` receives the name or resolved path; `is_inline` whether a map.
models::Profile ReadProfile(YamlMap& map, const LoadContext& ctx, std::string* written,
                            bool* is_inline) {
  const YAML::Node inline_profile = YamlAt(map.node(), "profile");
  if (inline_profile.IsDefined() && inline_profile.IsMap()) {
    map.Take("profile");
    models::Profile p = models::ParseProfile(inline_profile, map.source(), map.Child("profile"),
                                             ctx.base_dir.string());
    *written = p.name;
    *is_inline = true;
    return p;
  }
  *is_inline = false;
  *written = map.String("profile");
  const bool file = written->size() > 5 && written->ends_with(".yaml");
  if (file) {
    *written = ResolvePath(map, "profile", *written, ctx.base_dir);
    CheckProfileFile(map, *written);
  }
  try {
    return models::FindProfile(*written);
  } catch (const std::invalid_argument& e) {
    map.Fail("profile", e.what());
  } catch (const YamlError& e) {
    map.Fail("profile", e.what());
  }
}

void ParseProfile(YamlMap& cluster, const LoadContext& ctx, Scenario* s) {
  s->resolved_profile = ReadProfile(cluster, ctx, &s->profile, &s->profile_inline);
}

std::vector<WeightStep> ParseSchedule(const YamlMap& deployment, const YAML::Node& list) {
  const std::string path = deployment.Child("schedule");
  if (!list.IsSequence()) deployment.FailAt(list, path, "expected a list of {at_s, weight}");
  std::vector<WeightStep> steps;
  for (size_t k = 0; k < list.size(); ++k) {
    YamlMap step(deployment.shared_source(), list[k], path + "[" + std::to_string(k) + "]",
                 &WeightStepKeys());
    WeightStep w{step.Number("at_s"), step.Number("weight")};
    if (!steps.empty() && w.at_s <= steps.back().at_s) {
      step.Fail("at_s", "steps must be in strictly increasing at_s");
    }
    step.Finish();
    steps.push_back(w);
  }
  return steps;
}

// A deployment's own profile must serve the cluster's model: requests,
// prefix hashes and (disaggregated) KV transfers are the model's.
void CheckSameModel(const YamlMap& d, const models::Profile& own, const models::Profile& cluster) {
  if (own.model.name == cluster.model.name) return;
  d.Fail("profile", "serves model '" + own.model.name + "' but cluster.profile serves '" +
                        cluster.model.name +
                        "': every deployment serves the cluster's model (give another GPU "
                        "or tensor_parallel)");
}

void ParseDeployments(YamlMap& cluster, const LoadContext& ctx, Scenario* s) {
  YAML::Node list = cluster.Required("deployments");
  if (!list.IsSequence() || list.size() == 0) {
    cluster.Fail("deployments", "expected a non-empty list of {name, replicas, ...}");
  }
  uint64_t replicas = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    YamlMap d(cluster.shared_source(), list[i],
              cluster.Child("deployments") + "[" + std::to_string(i) + "]", &DeploymentKeys());
    DeploymentSpec spec;
    std::string by_position = "d";
    by_position += std::to_string(i);
    spec.name = d.String("name", by_position);
    if (spec.name.empty()) d.Fail("name", "expected a non-empty name");
    spec.replicas = static_cast<uint32_t>(d.Integer("replicas"));
    spec.role = d.Choice("role", DeploymentRoles());
    if (YamlAt(d.node(), "profile").IsDefined()) {
      bool is_inline = false;
      spec.profile = ReadProfile(d, ctx, &spec.profile_ref, &is_inline);
      if (is_inline) spec.profile_ref.clear();
      CheckSameModel(d, *spec.profile, s->resolved_profile);
    } else {
      d.Take("profile");
    }
    replicas += spec.replicas;
    if (replicas > kMaxReplicas) {
      d.Fail("replicas",
             "the deployments hold more than " + std::to_string(kMaxReplicas) + " replicas in all");
    }
    spec.usd_per_gpu_hour = d.Number("usd_per_gpu_hour");
    spec.pool = d.String("pool", "");
    spec.weight = d.Number("weight");
    if (YAML::Node schedule = d.Take("schedule"); schedule.IsDefined()) {
      spec.schedule = ParseSchedule(d, schedule);
    }
    if (YAML::Node policy = d.Take("policy"); policy.IsDefined()) {
      spec.policy = ParsePolicyEntry(d, policy, d.Child("policy"));
    }
    if (d.Take("autoscale").IsDefined()) spec.autoscale = ParseAutoscale(d, spec.replicas);
    d.Finish();
    for (const DeploymentSpec& other : s->deployments) {
      if (other.name == spec.name) {
        d.Fail("name", "deployment '" + spec.name + "' is listed twice");
      }
    }
    s->deployments.push_back(spec);
  }
  // Weights all 0 at some time would send that time's requests nowhere: they
  // would vanish from every count.
  std::vector<double> times{0};
  for (const DeploymentSpec& d : s->deployments) {
    for (const WeightStep& step : d.schedule) times.push_back(step.at_s);
  }
  for (double t : times) {
    double total = 0;
    for (const DeploymentSpec& d : s->deployments) total += d.WeightAt(t);
    if (!(total > 0)) {
      cluster.Fail("deployments", "every deployment's weight is 0 at " + FormatYamlNumber(t) +
                                      " s: requests would have nowhere to go; give one a "
                                      "positive weight");
    }
  }
}

}  // namespace

const ChoiceTable<CostModelKind>& CostModelKinds() {
  static const ChoiceTable<CostModelKind> table(
      "cost model", {{"roofline", CostModelKind::kRoofline}, {"fixed", CostModelKind::kFixed}});
  return table;
}

const ChoiceTable<models::EvictionOrder>& EvictionOrders() {
  static const ChoiceTable<models::EvictionOrder> table(
      "eviction order", {{"radix_lru", models::EvictionOrder::kRadixLru},
                         {"vllm_free_queue", models::EvictionOrder::kVllmFreeQueue}});
  return table;
}

const ChoiceTable<Scenario::HitEstimate>& HitEstimates() {
  static const ChoiceTable<Scenario::HitEstimate> table(
      "hit estimate",
      {{"exact", Scenario::HitEstimate::kExact}, {"router", Scenario::HitEstimate::kRouter}});
  return table;
}

const YamlKeyTable& ClusterKeys() {
  static const Scenario d;
  static const YamlKeyTable table{
      "cluster",
      {StringKey("profile", d.profile,
                 "a built-in profile (`kvroute profiles`), a profile .yaml file, or "
                 "{model, gpu, tensor_parallel, weight_dtype, kv_dtype}"),
       NestedKey("deployments", YamlType::kList, "", "the replicas, grouped into deployments")
           .Required(),
       NestedKey("engine", YamlType::kMap, "vLLM's defaults",
                 "the serving engine's arguments (vLLM's names)"),
       IntegerKey("kv_blocks", 0, 1, 1 << 27, "KV pool of each replica, in blocks")
           .Default("from the profile"),
       NestedKey("kv_tiers", YamlType::kMap, "none: HBM only",
                 "a host-memory KV tier below each replica's HBM, and optionally local SSD "
                 "below it (docs/KV_TIERS.md)"),
       ChoiceKey("eviction", EvictionOrders().names(),
                 EvictionOrders().NameOf(d.scheduler.eviction),
                 "KV eviction order: SGLang's radix LRU or vLLM v1's free queue"),
       NestedKey("cost_model", YamlType::kMap, "{kind: roofline}",
                 "iteration time: the profile's roofline, or a fixed time per iteration"),
       NumberKey("signal_refresh_s", d.signal_refresh_s, 0, 1e7,
                 "the router polls load signals this often, s; 0: live"),
       NestedKey("disaggregation", YamlType::kMap, "none: every replica serves whole requests",
                 "prefill/decode disaggregation between a prefill and a decode deployment"),
       NestedKey("kv_events", YamlType::kMap, "none: exact caches",
                 "{delay_s, loss}: routers that index KV events see them late or never"),
       NumberKey("lambda_h", d.lambda_h, 0, 1e4,
                 "deployment choice P_d ~ w_d * 2^(lambda_h * H_d) (seed 000); 0: weights only"),
       NumberKey("lambda_q", d.lambda_q, 0, 1e4,
                 "load in the deployment choice: P_d ~ w_d * 2^(lambda_h * H_d - lambda_q * "
                 "Q_d), Q_d the requests waiting per serving replica of d; 0: no load term"),
       ChoiceKey("deployment_hit_estimate", HitEstimates().names(),
                 HitEstimates().NameOf(d.deployment_hit_estimate),
                 "where H_d comes from: the replicas' caches, or the router's own record"),
       NumberKey("series_interval_s", d.series_interval_s, 1e-3, 1e7,
                 "bucket width of each point's time series, s"),
       StringKey("pool", "",
                 "routing pool: adjacent deployments with one pool name share one policy over "
                 "all their replicas")
           .Default("a pool of its own"),
       NumberKey("usd_per_gpu_hour", d.usd_per_gpu_hour, 0, 1e6,
                 "price of one GPU-hour in US dollars, for cost reports")
           .Default("the GPU file's price (an assumption with its source)")}};
  return table;
}

const YamlKeyTable& DeploymentKeys() {
  static const DeploymentSpec d;
  static const YamlKeyTable table{
      "cluster.deployments[]",
      {StringKey("name", "", "unique name").Default("d0, d1, ... by position"),
       IntegerKey("replicas", d.replicas, 1, kMaxReplicas, "replicas in this deployment")
           .Required(),
       ChoiceKey("role", DeploymentRoles().names(), DeploymentRoles().NameOf(d.role),
                 "serve whole requests, or one stage of cluster.disaggregation"),
       StringKey("profile", "",
                 "its own GPU kind or tensor-parallel size of the cluster's model: "
                 "a built-in profile, a .yaml file, or a map")
           .Default("cluster.profile"),
       StringKey("pool", "",
                 "routing pool: adjacent deployments with one pool name share one policy over "
                 "all their replicas")
           .Default("a pool of its own"),
       NumberKey("usd_per_gpu_hour", d.usd_per_gpu_hour, 0, 1e6,
                 "price of one of its GPU-hours in US dollars")
           .Default("its own profile's GPU file, else the cluster's price"),
       NumberKey("weight", d.weight, 0, INFINITY, "w_d until the first schedule step"),
       NestedKey("schedule", YamlType::kList, "none",
                 "list of {at_s, weight} steps, at_s strictly increasing (a canary rollout)"),
       NestedKey("policy", YamlType::kMap, "the point's policy",
                 "its own policy, a name or {name, param: value}"),
       NestedKey("autoscale", YamlType::kMap, "none: a fixed fleet",
                 "a horizontal autoscaler; `replicas` is then the most it may run")}};
  return table;
}

const YamlKeyTable& WeightStepKeys() {
  static const YamlKeyTable table{
      "cluster.deployments[].schedule[]",
      {NumberKey("at_s", 0, 0, 1e7, "from this simulated time on").Required(),
       NumberKey("weight", 0, 0, INFINITY, "the deployment's weight").Required()}};
  return table;
}

const YamlKeyTable& CostModelKeys() {
  static const YamlKeyTable table{
      "cluster.cost_model",
      {ChoiceKey("kind", CostModelKinds().names(), "roofline", "how an iteration's time is found"),
       NumberKey("iteration_s", 0, 1e-9, 1e6, "every iteration's time, s (queueing validation)")
           .When("kind: fixed")}};
  return table;
}

void ParseCluster(YamlMap& top, const LoadContext& ctx, Scenario* s) {
  const YAML::Node raw = YamlAt(top.node(), "cluster");
  if (const YAML::Node old = raw.IsMap() ? YamlAt(raw, "scheduler") : YAML::Node(); old) {
    top.shared_source()->Fail(old, "cluster.scheduler",
                              "renamed cluster.engine (vLLM's engine arguments: max_num_seqs, "
                              "max_num_batched_tokens, ...; `kvroute help scenario`)");
  }
  YamlMap cluster = top.Map("cluster", &ClusterKeys());
  ParseProfile(cluster, ctx, s);
  ParseDeployments(cluster, ctx, s);
  ParseEngine(cluster, s);
  s->kv_blocks = static_cast<int64_t>(cluster.Integer("kv_blocks"));
  if (s->kv_blocks == 0) CheckKvRoom(cluster, s->resolved_profile);
  s->scheduler.eviction = cluster.Choice("eviction", EvictionOrders());
  ParseKvTiers(cluster, s);
  CheckDeploymentProfiles(cluster, *s);
  if (cluster.Take("cost_model").IsDefined()) {
    YamlMap m = cluster.Map("cost_model", &CostModelKeys());
    if (m.Choice("kind", CostModelKinds()) == CostModelKind::kFixed) {
      m.Required("iteration_s");
      s->fixed_iteration_s = m.Number("iteration_s");
      // The queueing-theory ideal: a replica without a pipelined scheduler.
      s->scheduler.async_scheduling = false;
    }
    m.Finish();
  }
  s->signal_refresh_s = cluster.Number("signal_refresh_s");
  ParseKvEvents(cluster, s);
  s->lambda_h = cluster.Number("lambda_h");
  s->lambda_q = cluster.Number("lambda_q");
  ParseDisaggregation(cluster, s);
  CheckPools(cluster, *s);
  s->deployment_hit_estimate = cluster.Choice("deployment_hit_estimate", HitEstimates());
  s->series_interval_s = cluster.Number("series_interval_s");
  s->usd_per_gpu_hour = cluster.Number("usd_per_gpu_hour");
  cluster.Finish();
}

}  // namespace kvroute::sim::scenario
