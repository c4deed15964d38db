#include "analysis/time_series.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace kvroute::analysis {

TimeSeriesRecorder::TimeSeriesRecorder(sim::Time bucket)
    : bucket_(bucket), step_(bucket / kInstantsPerBucket) {
  assert(step_ > 0);
}

SeriesSample& TimeSeriesRecorder::At(sim::Time t) {
  const size_t index = static_cast<size_t>(t / bucket_);
  while (samples_.size() <= index) {
    SeriesSample sample;
    sample.start_s = static_cast<double>(samples_.size()) * sim::ToSeconds(bucket_);
    samples_.push_back(sample);
    instants_.push_back(0);
  }
  return samples_[index];
}

void TimeSeriesRecorder::Observe(sim::Time now, std::span<const models::ReplicaLoad> loads) {
  const double replicas = static_cast<double>(std::max<size_t>(loads.size(), 1));
  while (next_instant_ < now) {
    // Instant i belongs to bucket i / kInstantsPerBucket by construction, so
    // rounding in step_ never moves an instant into the next bucket.
    const size_t index = static_cast<size_t>(instant_ / kInstantsPerBucket);
    At(bucket_ * static_cast<sim::Time>(index));
    SeriesSample& s = samples_[index];
    uint64_t waiting = 0, most = 0, serving = 0;
    double kv = 0;
    for (const models::ReplicaLoad& load : loads) {
      serving += load.healthy;
      waiting += load.waiting;
      most = std::max<uint64_t>(most, load.waiting);
      kv += load.kv_utilization;
    }
    s.mean_waiting += static_cast<double>(waiting) / replicas;
    s.max_waiting = std::max(s.max_waiting, most);
    s.kv_utilization += kv / replicas;
    s.serving_replicas += static_cast<double>(serving);
    ++instants_[index];
    ++instant_;
    next_instant_ = bucket_ * static_cast<sim::Time>(instant_ / kInstantsPerBucket) +
                    step_ * static_cast<sim::Time>(instant_ % kInstantsPerBucket);
  }
}

void TimeSeriesRecorder::AddBilled(sim::Time from, sim::Time to, double replicas,
                                   double usd_per_replica_hour) {
  if (to <= from || replicas == 0) return;
  if (!(usd_per_replica_hour > 0)) unpriced_ = true;
  At(to - 1);  // every bucket up to the last one touched exists
  for (sim::Time t = from; t < to;) {
    const size_t index = static_cast<size_t>(t / bucket_);
    const sim::Time bucket_end = bucket_ * static_cast<sim::Time>(index + 1);
    const sim::Time until = std::min(to, bucket_end);
    // Replica-seconds until Finish turns them into a mean.
    samples_[index].billed_replicas += replicas * sim::ToSeconds(until - t);
    samples_[index].usd += replicas * sim::ToSeconds(until - t) / 3600 * usd_per_replica_hour;
    t = until;
  }
}

std::vector<SeriesSample> TimeSeriesRecorder::Finish(sim::Time end) {
  for (size_t i = 0; i < samples_.size(); ++i) {
    SeriesSample& s = samples_[i];
    const double n = instants_[i];
    s.mean_waiting = n > 0 ? s.mean_waiting / n : std::nan("");
    s.kv_utilization = n > 0 ? s.kv_utilization / n : std::nan("");
    s.serving_replicas = n > 0 ? s.serving_replicas / n : std::nan("");
    const sim::Time start = bucket_ * static_cast<sim::Time>(i);
    const double spanned = sim::ToSeconds(std::min(bucket_, end - start));
    const double replica_seconds = s.billed_replicas;
    s.billed_replicas = spanned > 0 ? replica_seconds / spanned : std::nan("");
    if (unpriced_) s.usd = std::nan("");
  }
  return std::move(samples_);
}

}  // namespace kvroute::analysis
