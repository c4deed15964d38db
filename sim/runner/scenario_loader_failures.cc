// `failures`: replicas that fail and recover on a schedule, and how often a
// request on a failed replica is re-routed.
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const YamlKeyTable& FailureKeys() {
  static const Scenario d;
  static const YamlKeyTable table{
      "failures",
      {IntegerKey("retry_limit", d.retry_limit, 0, 100,
                  "re-routings a request gets after replica failures"),
       NestedKey("schedule", YamlType::kList, "none", "list of {replica, at_s, recover_after_s}")}};
  return table;
}

const YamlKeyTable& FailureEventKeys() {
  static const FailureEvent d;
  static const YamlKeyTable table{
      "failures.schedule[]",
      {IntegerKey("replica", d.replica, 0, 99'999, "the replica, 0-based across deployments")
           .Required(),
       NumberKey("at_s", d.at_s, 0, 1e7, "it fails at this simulated time, s").Required(),
       NumberKey("recover_after_s", d.recover_after_s, 0, 1e7,
                 "it comes back this much later with an empty cache; 0: never")}};
  return table;
}

void ParseFailures(YamlMap& top, Scenario* s) {
  if (!top.Take("failures").IsDefined()) return;
  YamlMap f = top.Map("failures", &FailureKeys());
  s->retry_limit = static_cast<uint32_t>(f.Integer("retry_limit"));
  YAML::Node schedule = f.Take("schedule");
  if (schedule.IsDefined() && !schedule.IsSequence()) f.Fail("schedule", "expected a list");
  for (size_t i = 0; schedule.IsDefined() && i < schedule.size(); ++i) {
    const std::string path = f.Child("schedule") + "[" + std::to_string(i) + "]";
    YamlMap e(f.shared_source(), schedule[i], path, &FailureEventKeys());
    FailureEvent event;
    e.Required("replica");
    event.replica = static_cast<uint32_t>(e.Integer("replica", 0, 0, s->replica_count() - 1));
    e.Required("at_s");
    event.at_s = e.Number("at_s", 0, 0, s->duration_s + s->drain_s);
    event.recover_after_s = e.Number("recover_after_s");
    e.Finish();
    for (const FailureEvent& other : s->failures) {
      if (other.replica != event.replica) continue;
      double other_end = other.recover_after_s > 0 ? other.at_s + other.recover_after_s : INFINITY;
      double end = event.recover_after_s > 0 ? event.at_s + event.recover_after_s : INFINITY;
      if (event.at_s < other_end && other.at_s < end) {
        e.FailAt(schedule[i], path,
                 "overlaps an earlier failure of replica " + std::to_string(event.replica));
      }
    }
    s->failures.push_back(event);
  }
  f.Finish();
}

}  // namespace kvroute::sim::scenario
