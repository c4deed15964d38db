// `cluster.kv_events`: how late, and how reliably, routers that index the
// engines' KV events learn of cache changes (stale_cache_view.h).
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const YamlKeyTable& KvEventsKeys() {
  static const KvEventsSpec d;
  static const YamlKeyTable table{
      "cluster.kv_events",
      {NumberKey("delay_s", d.delay_s, 0, 1e7,
                 "from a block stored or evicted on a replica to the router's index seeing it, s"),
       NumberKey("loss", d.loss, 0, 1,
                 "probability that an event (one run of blocks) never reaches the router")}};
  return table;
}

void ParseKvEvents(YamlMap& cluster, Scenario* s) {
  if (!cluster.Take("kv_events").IsDefined()) return;
  YamlMap m = cluster.Map("kv_events", &KvEventsKeys());
  s->kv_events.enabled = true;
  s->kv_events.delay_s = m.Number("delay_s");
  s->kv_events.loss = m.Number("loss");
  m.Finish();
}

}  // namespace kvroute::sim::scenario
