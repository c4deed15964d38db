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

std::vector<SeriesSample> TimeSeriesRecorder::Finish() {
  for (size_t i = 0; i < samples_.size(); ++i) {
    const double n = instants_[i];
    samples_[i].mean_waiting = n > 0 ? samples_[i].mean_waiting / n : std::nan("");
    samples_[i].kv_utilization = n > 0 ? samples_[i].kv_utilization / n : std::nan("");
    samples_[i].serving_replicas = n > 0 ? samples_[i].serving_replicas / n : std::nan("");
  }
  return std::move(samples_);
}

}  // namespace kvroute::analysis
