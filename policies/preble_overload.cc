#include "policies/preble_overload.h"

#include <algorithm>
#include <utility>

namespace kvroute::policies {

void TtftOverloadDetector::Add(sim::Time now, uint32_t node, uint32_t gpu, double ttft_s) {
  Series& s = series_[Key(node, gpu)];
  s.points.push_back({now, ttft_s});
  while (s.points.front().time < now - window_) {
    s.points.pop_front();
    ++s.dropped;
  }
}

uint64_t TtftOverloadDetector::FirstAtOrAfter(const Series& s, sim::Time t) {
  size_t lo = 0, hi = s.points.size();  // points are in time order
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (s.points[mid].time < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return s.dropped + lo;
}

bool TtftOverloadDetector::Overloaded(uint32_t node, uint32_t gpu, sim::Time now) const {
  auto it = series_.find(Key(node, gpu));
  if (it == series_.end()) return false;
  Series& s = it->second;
  const uint64_t begin = FirstAtOrAfter(s, now - window_);
  const uint64_t middle = std::max(begin, FirstAtOrAfter(s, now - window_ / 2));
  const uint64_t end = s.dropped + s.points.size();
  auto at = [&s](uint64_t i) { return s.points[i - s.dropped].ttft_s; };
  // Each half is summed left to right, as the scan over the window does:
  // extended when only its end moved on, summed afresh otherwise.
  if (begin != s.first_begin || middle < s.second_begin) {
    s.first = 0;
    for (uint64_t i = begin; i < middle; ++i) s.first += at(i);
  } else {
    for (uint64_t i = s.second_begin; i < middle; ++i) s.first += at(i);
  }
  if (middle != s.second_begin || end < s.second_end) {
    s.second = 0;
    for (uint64_t i = middle; i < end; ++i) s.second += at(i);
  } else {
    for (uint64_t i = s.second_end; i < end; ++i) s.second += at(i);
  }
  s.first_begin = begin;
  s.second_begin = middle;
  s.second_end = end;
  const uint64_t first_n = middle - begin, second_n = end - middle;
  if (first_n == 0 || second_n == 0) return false;
  return s.second / static_cast<double>(second_n) >=
         factor_ * (s.first / static_cast<double>(first_n));
}

void TtftOverloadDetector::Rename(uint32_t from, uint32_t to, uint32_t gpu) {
  auto it = series_.find(Key(from, gpu));
  if (it == series_.end()) return;
  series_[Key(to, gpu)] = std::move(it->second);
  series_.erase(Key(from, gpu));
}

}  // namespace kvroute::policies
