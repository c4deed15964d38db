// `cluster.deployments[].autoscale`: a horizontal autoscaler for one
// deployment (sim/runner/autoscaler.h). Defaults are Kubernetes' HPA's; the
// provisioning delay has no default, since it is the engine's start-up time
// (pulling the image, loading the weights, warming CUDA graphs), which only a
// measurement of the user's own deployment gives.
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const ChoiceTable<AutoscaleSpec::Signal>& AutoscaleSignals() {
  static const ChoiceTable<AutoscaleSpec::Signal> table(
      "autoscale signal", {{"waiting", AutoscaleSpec::Signal::kWaiting},
                           {"kv_use", AutoscaleSpec::Signal::kKvUse},
                           {"schedule", AutoscaleSpec::Signal::kSchedule}});
  return table;
}

const YamlKeyTable& AutoscaleKeys() {
  static const AutoscaleSpec d;
  static const YamlKeyTable table{
      "cluster.deployments[].autoscale",
      {ChoiceKey("signal", AutoscaleSignals().names(), AutoscaleSignals().NameOf(d.signal),
                 "what drives the count: requests waiting per serving replica, KV-pool use "
                 "per serving replica (0..1), or a schedule"),
       NumberKey("target", d.target, 1e-9, 1e9,
                 "the signal's target per serving replica: desired = ceil(requested x "
                 "signal / target) (Kubernetes HPA)")
           .When("signal: waiting or kv_use"),
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
