#include "policies/preble_overload.h"

#include <utility>

namespace kvroute::policies {

void TtftOverloadDetector::Add(sim::Time now, uint32_t node, uint32_t gpu, double ttft_s) {
  sim::RingDeque<Point>& points = series_[Key(node, gpu)];
  points.push_back({now, ttft_s});
  while (points.front().time < now - window_) points.pop_front();
}

bool TtftOverloadDetector::Overloaded(uint32_t node, uint32_t gpu, sim::Time now) const {
  auto it = series_.find(Key(node, gpu));
  if (it == series_.end()) return false;
  const sim::Time start = now - window_, half = now - window_ / 2;
  double first = 0, second = 0;
  int64_t first_n = 0, second_n = 0;
  for (size_t i = 0; i < it->second.size(); ++i) {
    const Point& p = it->second[i];
    if (p.time < start) continue;
    if (p.time < half) {
      first += p.ttft_s;
      ++first_n;
    } else {
      second += p.ttft_s;
      ++second_n;
    }
  }
  if (first_n == 0 || second_n == 0) return false;
  return second / static_cast<double>(second_n) >= factor_ * (first / static_cast<double>(first_n));
}

void TtftOverloadDetector::Rename(uint32_t from, uint32_t to, uint32_t gpu) {
  auto it = series_.find(Key(from, gpu));
  if (it == series_.end()) return;
  series_[Key(to, gpu)] = std::move(it->second);
  series_.erase(Key(from, gpu));
}

}  // namespace kvroute::policies
