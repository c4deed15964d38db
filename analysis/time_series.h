// A point's time series over simulated time: per bucket of `series_interval_s`
// seconds, what arrived, finished and hit, and how full the replicas' queues
// and KV pools were. Drift, canary rollouts (seed 000) and failures show over
// time, not in a point's totals. Counts are exact; queue and KV figures are
// read at a fixed number of evenly spaced instants per bucket (the state is
// piecewise constant between events, so an instant reads it exactly), which
// keeps the cost per event at one comparison.
#ifndef KVROUTE_ANALYSIS_TIME_SERIES_H_
#define KVROUTE_ANALYSIS_TIME_SERIES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "models/replica_load.h"
#include "sim/core/time.h"

namespace kvroute::analysis {

// Bucket [start_s, start_s + width). The series spans the whole run, warm-up
// and drain included.
struct SeriesSample {
  double start_s = 0;
  uint64_t arrived = 0;        // requests whose arrival falls in the bucket
  uint64_t completed = 0;      // requests that finished in the bucket
  uint64_t prompt_tokens = 0;  // of the requests that arrived in it, at first admission
  uint64_t hit_tokens = 0;     // their served cache hits, same requests
  // Waiting (queued, not admitted) requests per replica, mean over the
  // bucket's instants and all replicas; and the most on one replica at one
  // instant. NaN / 0 for a bucket with no instant (the run ended first).
  double mean_waiting = 0;
  uint64_t max_waiting = 0;
  double kv_utilization = 0;  // used / capacity KV blocks, mean over instants and replicas
  // Replicas taking requests (healthy: neither failed nor turned off by an
  // autoscaler), mean over the bucket's instants; NaN without an instant.
  double serving_replicas = 0;
  // Replicas billed (serving, failed, provisioning or draining: every replica
  // not turned off), mean over the bucket's time, exact; and what they cost
  // in the bucket, $ (NaN without a price). The last bucket counts only the
  // time it spans before the run's end.
  double billed_replicas = 0;
  double usd = 0;
  uint64_t failures = 0;    // replica failures in the bucket
  uint64_t recoveries = 0;  // replica recoveries in the bucket
};

class TimeSeriesRecorder {
 public:
  static constexpr uint32_t kInstantsPerBucket = 10;

  // REQUIRES: bucket >= kInstantsPerBucket nanoseconds.
  explicit TimeSeriesRecorder(sim::Time bucket);

  void OnArrival(sim::Time arrival) { ++At(arrival).arrived; }
  void OnAdmitted(sim::Time arrival, uint64_t prompt_tokens, uint64_t hit_tokens) {
    SeriesSample& s = At(arrival);
    s.prompt_tokens += prompt_tokens;
    s.hit_tokens += hit_tokens;
  }
  void OnCompleted(sim::Time now) { ++At(now).completed; }
  void OnFailure(sim::Time now) { ++At(now).failures; }
  void OnRecovery(sim::Time now) { ++At(now).recoveries; }

  // Reads `loads` at every instant before `now` not read yet: the state the
  // events before `now` left. Cheap to call when there is none.
  void ObserveUntil(sim::Time now, std::span<const models::ReplicaLoad> loads) {
    if (now > next_instant_) Observe(now, loads);
  }

  // `replicas` replicas billed from `from` to `to` (spread exactly over
  // buckets), each costing `usd_per_replica_hour` (0: no price, and then no
  // bucket has a cost).
  void AddBilled(sim::Time from, sim::Time to, double replicas, double usd_per_replica_hour);

  // The series, instant sums turned into means; the run ended at `end`.
  // Call once.
  std::vector<SeriesSample> Finish(sim::Time end);

 private:
  SeriesSample& At(sim::Time t);
  void Observe(sim::Time now, std::span<const models::ReplicaLoad> loads);

  sim::Time bucket_;
  sim::Time step_;  // between instants
  sim::Time next_instant_ = 0;
  uint64_t instant_ = 0;               // index of next_instant_
  std::vector<SeriesSample> samples_;  // one per bucket, by index
  std::vector<uint32_t> instants_;     // per bucket: instants read
  bool unpriced_ = false;              // some billed replica has no price
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_TIME_SERIES_H_
