// `cluster.deployments[].autoscale`: a horizontal autoscaler for one
// deployment (sim/runner/autoscaler.h). Defaults are Kubernetes' HPA's; the
// provisioning delay has no default, since it is the engine's start-up time
// (pulling the image, loading the weights, warming CUDA graphs), which only a
// measurement of the user's own deployment gives.
#include <cmath>

#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const ChoiceTable<AutoscaleSpec::Signal>& AutoscaleSignals() {
  static const ChoiceTable<AutoscaleSpec::Signal> table(
      "autoscale signal", {{"waiting", AutoscaleSpec::Signal::kWaiting},
                           {"kv_use", AutoscaleSpec::Signal::kKvUse},
                           {"ttft", AutoscaleSpec::Signal::kTtft},
                           {"schedule", AutoscaleSpec::Signal::kSchedule}});
  return table;
}

const ChoiceTable<ScalingSelect>& ScalingSelects() {
  static const ChoiceTable<ScalingSelect> table("scaling select",
                                                {{"max", ScalingSelect::kMax},
                                                 {"min", ScalingSelect::kMin},
                                                 {"disabled", ScalingSelect::kDisabled}});
  return table;
}

const ChoiceTable<ScalingPolicy::Type>& ScalingPolicyTypes() {
  static const ChoiceTable<ScalingPolicy::Type> table(
      "scaling policy type",
      {{"pods", ScalingPolicy::Type::kPods}, {"percent", ScalingPolicy::Type::kPercent}});
  return table;
}

const YamlKeyTable& AutoscaleKeys() {
  static const AutoscaleSpec d;
  static const YamlKeyTable table{
      "cluster.deployments[].autoscale",
      {ChoiceKey("signal", AutoscaleSignals().names(), AutoscaleSignals().NameOf(d.signal),
                 "what drives the count: requests waiting per serving replica, KV-pool use "
                 "per serving replica (0..1), a TTFT quantile over a window, or a schedule"),
       NumberKey("target", d.target, 1e-9, 1e9,
                 "the signal's target (per serving replica; seconds for ttft): desired = "
                 "ceil(requested x signal / target) (Kubernetes HPA)")
           .When("signal: waiting, kv_use or ttft"),
       NumberKey("quantile", d.quantile, 1e-6, 1,
                 "which TTFT quantile of the window drives the count (an assumption: p90)")
           .When("signal: ttft"),
       NumberKey("window_s", d.window_s, 1e-3, 1e7,
                 "the TTFTs of the first tokens of the last window_s seconds (an assumption: "
                 "a 1-minute Prometheus range)")
           .When("signal: ttft"),
       NumberKey("tolerance", d.tolerance, 0, 10,
                 "no change while |signal / target - 1| <= tolerance (HPA's default)"),
       IntegerKey("min_replicas", d.min_replicas, 1, 100'000, "the fewest replicas it keeps"),
       IntegerKey("initial_replicas", 0, 1, 100'000, "replicas serving at time 0")
           .Default("min_replicas"),
       NumberKey("interval_s", d.interval_s, 1e-3, 1e7, "between decisions, s (HPA's sync period)"),
       NumberKey("scale_up_stabilization_s", d.scale_up_stabilization_s, 0, 1e7,
                 "a scale-up takes the least recommendation of this window, s (HPA's default)"),
       NumberKey("scale_down_stabilization_s", d.scale_down_stabilization_s, 0, 1e7,
                 "a scale-down takes the most recommendation of this window, s (HPA's default)"),
       NestedKey("scale_up_policies", YamlType::kList,
                 "[{type: pods, value: 4, period_s: 15}, {type: percent, value: 100, period_s: "
                 "15}]",
                 "rate limits on scaling up, each within any period_s (HPA's defaults)"),
       ChoiceKey("scale_up_select", ScalingSelects().names(),
                 ScalingSelects().NameOf(d.scale_up_select),
                 "the loosest (max) or tightest (min) scale-up policy applies, or none may "
                 "scale up (disabled)"),
       NestedKey("scale_down_policies", YamlType::kList,
                 "[{type: percent, value: 100, period_s: 15}]",
                 "rate limits on scaling down, each within any period_s (HPA's default)"),
       ChoiceKey("scale_down_select", ScalingSelects().names(),
                 ScalingSelects().NameOf(d.scale_down_select),
                 "the loosest (max) or tightest (min) scale-down policy applies, or none may "
                 "scale down (disabled)"),
       NumberKey("provisioning_delay_s", 0, 0, 1e7,
                 "from a scale-up decision until the new replica serves (cold cache), s; "
                 "billed from the decision")
           .Required(),
       NestedKey("schedule", YamlType::kList, "none",
                 "list of {at_s, replicas}, at_s strictly increasing")
           .When("signal: schedule")}};
  return table;
}

const YamlKeyTable& ReplicaStepKeys() {
  static const YamlKeyTable table{
      "cluster.deployments[].autoscale.schedule[]",
      {NumberKey("at_s", 0, 0, 1e7, "from this simulated time on").Required(),
       IntegerKey("replicas", 1, 1, 100'000, "the replicas it asks for").Required()}};
  return table;
}

const YamlKeyTable& ScalingPolicyKeys() {
  static const YamlKeyTable table{
      "cluster.deployments[].autoscale.scale_*_policies[]",
      {ChoiceKey("type", ScalingPolicyTypes().names(), "pods",
                 "a change of at most `value` replicas, or `value` percent of the count at "
                 "the period's start")
           .Required(),
       NumberKey("value", 0, 1e-9, 1e6, "replicas, or percent").Required(),
       NumberKey("period_s", 15, 1e-3, 1800,
                 "the sliding period the limit holds over, s "
                 "(HPA allows at most 1800)")
           .Required()}};
  return table;
}

namespace {

std::vector<ScalingPolicy> ParseScalingPolicies(YamlMap& m, const std::string& key,
                                                std::vector<ScalingPolicy> defaults) {
  YAML::Node list = m.Take(key);
  if (!list.IsDefined()) return defaults;
  const std::string path = m.Child(key);
  // HPA's validation refuses an empty list: with none, nothing could change.
  if (!list.IsSequence() || list.size() == 0) {
    m.FailAt(list, path, "expected a non-empty list of {type, value, period_s}");
  }
  std::vector<ScalingPolicy> policies;
  for (size_t k = 0; k < list.size(); ++k) {
    YamlMap entry(m.shared_source(), list[k], path + "[" + std::to_string(k) + "]",
                  &ScalingPolicyKeys());
    ScalingPolicy p;
    p.type = entry.Choice("type", ScalingPolicyTypes());
    p.value = entry.Number("value");
    if (p.type == ScalingPolicy::Type::kPods && p.value != std::floor(p.value)) {
      entry.Fail("value", "a number of replicas must be a whole number");
    }
    p.period_s = entry.Number("period_s");
    entry.Finish();
    policies.push_back(p);
  }
  return policies;
}

}  // namespace

AutoscaleSpec ParseAutoscale(YamlMap& deployment, uint32_t max_replicas) {
  YamlMap m = deployment.Map("autoscale", &AutoscaleKeys());
  AutoscaleSpec a;
  a.signal = m.Choice("signal", AutoscaleSignals());
  const bool scheduled = a.signal == AutoscaleSpec::Signal::kSchedule;
  const std::string most = " (the deployment's replicas, the most it may run)";
  if (!scheduled) {
    m.Required("target");
    a.target = m.Number("target");
  } else if (YamlAt(m.node(), "target").IsDefined()) {
    m.Fail("target", "a schedule has no target; remove it or choose signal waiting or kv_use");
  }
  if (a.signal == AutoscaleSpec::Signal::kTtft) {
    a.quantile = m.Number("quantile");
    a.window_s = m.Number("window_s");
  } else {
    for (const char* key : {"quantile", "window_s"}) {
      if (YamlAt(m.node(), key).IsDefined()) m.Fail(key, "is read only with signal: ttft");
    }
  }
  a.tolerance = m.Number("tolerance");
  a.min_replicas = static_cast<uint32_t>(m.Integer("min_replicas"));
  if (a.min_replicas > max_replicas) {
    m.Fail("min_replicas", "is more than " + std::to_string(max_replicas) + most);
  }
  a.initial_replicas = static_cast<uint32_t>(m.Integer("initial_replicas"));
  if (a.initial_replicas == 0) a.initial_replicas = a.min_replicas;
  if (a.initial_replicas < a.min_replicas || a.initial_replicas > max_replicas) {
    m.Fail("initial_replicas",
           "must be within [min_replicas, " + std::to_string(max_replicas) + "]" + most);
  }
  a.interval_s = m.Number("interval_s");
  a.scale_up_stabilization_s = m.Number("scale_up_stabilization_s");
  a.scale_down_stabilization_s = m.Number("scale_down_stabilization_s");
  a.provisioning_delay_s = m.Number("provisioning_delay_s");
  if (scheduled) {
    for (const char* key :
         {"scale_up_policies", "scale_up_select", "scale_down_policies", "scale_down_select"}) {
      if (YamlAt(m.node(), key).IsDefined()) {
        m.Fail(key, "a schedule's steps are taken as given, without rate limits; remove it");
      }
    }
  }
  a.scale_up_policies = ParseScalingPolicies(m, "scale_up_policies", a.scale_up_policies);
  a.scale_up_select = m.Choice("scale_up_select", ScalingSelects());
  a.scale_down_policies = ParseScalingPolicies(m, "scale_down_policies", a.scale_down_policies);
  a.scale_down_select = m.Choice("scale_down_select", ScalingSelects());
  if (YAML::Node list = m.Take("schedule"); list.IsDefined()) {
    if (!scheduled) m.Fail("schedule", "a schedule needs signal: schedule");
    const std::string path = m.Child("schedule");
    if (!list.IsSequence() || list.size() == 0) {
      m.FailAt(list, path, "expected a non-empty list of {at_s, replicas}");
    }
    for (size_t k = 0; k < list.size(); ++k) {
      YamlMap step(m.shared_source(), list[k], path + "[" + std::to_string(k) + "]",
                   &ReplicaStepKeys());
      ReplicaStep r{step.Number("at_s"), static_cast<uint32_t>(step.Integer("replicas"))};
      if (!a.schedule.empty() && r.at_s <= a.schedule.back().at_s) {
        step.Fail("at_s", "steps must be in strictly increasing at_s");
      }
      if (r.replicas < a.min_replicas || r.replicas > max_replicas) {
        step.Fail("replicas",
                  "must be within [min_replicas, " + std::to_string(max_replicas) + "]" + most);
      }
      step.Finish();
      a.schedule.push_back(r);
    }
  } else if (scheduled) {
    m.Required("schedule");
  }
  m.Finish();
  return a;
}

}  // namespace kvroute::sim::scenario
