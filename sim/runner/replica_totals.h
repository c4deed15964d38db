// A point's whole-run totals over its replicas: prefill work, evictions,
// preemptions, failures and the host-memory KV tier's traffic.
#ifndef KVROUTE_SIM_RUNNER_REPLICA_TOTALS_H_
#define KVROUTE_SIM_RUNNER_REPLICA_TOTALS_H_

#include "analysis/point_metrics.h"
#include "models/replica.h"

namespace kvroute::sim {

// Adds `replica`'s counters to `result`.
void AddReplicaTotals(const models::Replica& replica, analysis::PointResult* result);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPLICA_TOTALS_H_
