#include "policies/preble_overload.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "sim/core/slot_pool.h"

namespace kvroute::policies {

void TtftOverloadDetector::Add(sim::Time now, uint32_t node, uint32_t gpu, double ttft_s) {
  Series* found = Find(node, gpu);
  if (found == nullptr) {
    const uint32_t index = sim::TakeSlot(series_, free_);
    // A reused series starts afresh but keeps its points' storage.
    sim::RingDeque<Point> points = std::move(series_[index].points);
    points.clear();
    series_[index] = Series{};
    series_[index].points = std::move(points);
    index_.Insert(Key(node, gpu), index);
    Tell(node, gpu, index);
    found = &series_[index];
  }
  Series& s = *found;
  s.points.push_back({now, ttft_s, s.total});
  s.total += ttft_s;
  ++s.added;
  while (s.points.front().time < now - window_) {
    s.points.pop_front();
    ++s.dropped;
  }
}

uint64_t TtftOverloadDetector::FirstAtOrAfter(const Series& s, sim::Time t, uint64_t* hint) {
  // Points are in time order. From the hint, if every point before it is
  // before `t`, walk on (amortized O(1) over questions at rising times).
  const uint64_t from = std::max(*hint, s.dropped), end = s.dropped + s.points.size();
  if (from == s.dropped || s.points[from - 1 - s.dropped].time < t) {
    uint64_t i = from;
    while (i < end && s.points[i - s.dropped].time < t) ++i;
    return *hint = i;
  }
  size_t lo = 0, hi = s.points.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (s.points[mid].time < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return *hint = s.dropped + lo;
}

bool TtftOverloadDetector::Overloaded(uint32_t node, uint32_t gpu, sim::Time now) const {
  Series* found = FindAsked(node, gpu);
  if (found == nullptr) return false;
  Series& s = *found;
  const uint64_t end = s.dropped + s.points.size();
  if (end == s.answered_end && now >= s.answered_at && now <= s.answered_until) return s.answer;
  const uint64_t begin = FirstAtOrAfter(s, now - window_, &s.begin_hint);
  const uint64_t middle = std::max(begin, FirstAtOrAfter(s, now - window_ / 2, &s.middle_hint));
  // The first point at or after now − window stays `begin` while now is at
  // most its time + window; the same for the middle.
  auto until = [&s, end](uint64_t i, sim::Time span) {
    return i == end ? sim::kNever : s.points[i - s.dropped].time + span;
  };
  const sim::Time stable = std::min(until(begin, window_), until(middle, window_ / 2));
  if (begin == middle || middle == end) {
    s.answer = false;
  } else if (begin != s.answered_begin || middle != s.answered_middle || end != s.answered_end) {
    s.answer = Answer(s, begin, middle, end);
  }
  s.answered_begin = begin;
  s.answered_middle = middle;
  s.answered_end = end;
  s.answered_at = now;
  s.answered_until = stable;
  return s.answer;
}

// The halves [begin, middle) and [middle, end) compared, as the full scan does.
bool TtftOverloadDetector::Answer(Series& s, uint64_t begin, uint64_t middle, uint64_t end) const {
  if (const int estimate = Estimate(s, begin, middle, end); estimate >= 0) return estimate == 1;
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

int TtftOverloadDetector::Estimate(const Series& s, uint64_t begin, uint64_t middle,
                                   uint64_t end) const {
  // TTFTs are not negative, so every partial sum is at most s.total and each
  // of the s.added additions rounds by at most u·s.total: a difference of two
  // running sums is within 2·added·u·total (+ its own rounding) of the exact
  // sum. A left-to-right double sum of n terms is within (n−1)·u of the exact
  // one relatively (Higham, Accuracy and Stability, §4.2), and the divisions
  // and the product round by a few u more.
  constexpr long double kLongU = std::numeric_limits<long double>::epsilon();
  constexpr long double kU = std::numeric_limits<double>::epsilon();
  auto before = [&s, end](uint64_t i) {
    return i == end ? s.total : s.points[i - s.dropped].before;
  };
  const long double first = before(middle) - before(begin);
  const long double second = before(end) - before(middle);
  const long double prefix_error = 2 * static_cast<long double>(s.added + 1) * kLongU * s.total;
  const long double first_n = static_cast<long double>(middle - begin);
  const long double second_n = static_cast<long double>(end - middle);
  const long double factor = factor_;
  const long double lhs = second / second_n, rhs = factor * first / first_n;
  const long double bound = prefix_error / second_n + factor * prefix_error / first_n +
                            (second_n + 4) * kU * (lhs + prefix_error / second_n) +
                            (first_n + 4) * kU * (rhs + factor * prefix_error / first_n);
  if (lhs - rhs > 4 * bound) return 1;
  if (rhs - lhs > 4 * bound) return 0;
  return -1;
}

TtftOverloadDetector::Series* TtftOverloadDetector::Find(uint32_t node, uint32_t gpu) const {
  const uint32_t index = index_.Find(Key(node, gpu));
  return index == models::HashIndex::kAbsent ? nullptr : &series_[index];
}

TtftOverloadDetector::Series* TtftOverloadDetector::FindAsked(uint32_t node, uint32_t gpu) const {
  if (gpu >= asked_.size()) asked_.resize(gpu + 1);
  Asked& asked = asked_[gpu];
  if (asked.node != node) {
    const uint32_t index = index_.Find(Key(node, gpu));
    asked = {node, index == models::HashIndex::kAbsent ? kNone : index};
  }
  return asked.series == kNone ? nullptr : &series_[asked.series];
}

void TtftOverloadDetector::Tell(uint32_t node, uint32_t gpu, uint32_t index) {
  if (gpu < asked_.size() && asked_[gpu].node == node) asked_[gpu].series = index;
}

void TtftOverloadDetector::Erase(uint32_t node, uint32_t gpu) {
  const uint32_t index = index_.Find(Key(node, gpu));
  if (index == models::HashIndex::kAbsent) return;
  index_.Erase(Key(node, gpu));
  free_.push_back(index);
  Tell(node, gpu, kNone);
}

// The pair's series replaces any series `to` had.
void TtftOverloadDetector::Rename(uint32_t from, uint32_t to, uint32_t gpu) {
  const uint32_t index = index_.Find(Key(from, gpu));
  if (index == models::HashIndex::kAbsent) return;
  Erase(to, gpu);
  index_.Erase(Key(from, gpu));
  index_.Insert(Key(to, gpu), index);
  Tell(from, gpu, kNone);
  Tell(to, gpu, index);
}

}  // namespace kvroute::policies
