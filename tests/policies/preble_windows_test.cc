// Preble's two windows against the plain computations they stand for: the
// TPOT median against sorting the last samples (np.median), the TTFT overload
// detector against summing the window's halves afresh left to right. Values
// are drawn from a few levels as well as at random, so that halves whose
// means are exactly in the overload ratio, where only the exact sums can
// answer, come up often.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "policies/median_window.h"
#include "policies/preble_overload.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

using sim::FromSeconds;
using sim::Time;

double SortedMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid] + v[mid - 1]) / 2;
}

TEST(MedianWindowTest, MedianOfTheLastSamplesAsNumpy) {
  sim::RandomStream rng(3, "test.median_window");
  for (size_t capacity : {1u, 2u, 7u, 200u}) {
    MedianWindow window(capacity, 0.15);
    std::deque<double> last{0.15};
    for (int i = 0; i < 3000; ++i) {
      const double x =
          rng.Uniform() < 0.5 ? 0.01 * static_cast<double>(rng.UniformInt(5)) : rng.Exponential(30);
      window.Push(x);
      last.push_back(x);
      if (last.size() > capacity) last.pop_front();
      ASSERT_EQ(window.Median(), SortedMedian({last.begin(), last.end()}))
          << "capacity " << capacity << " push " << i;
    }
  }
}

// The detector as Preble's is_node_overloaded reads: the points of the window
// summed afresh, each half left to right.
class ScanningDetector {
 public:
  ScanningDetector(Time window, double factor) : window_(window), factor_(factor) {}
  void Add(Time now, uint32_t node, double ttft) {
    auto& points = series_[node];
    points.push_back({now, ttft});
    while (points.front().first < now - window_) points.pop_front();
  }
  bool Overloaded(uint32_t node, Time now) const {
    auto it = series_.find(node);
    if (it == series_.end()) return false;
    double first = 0, second = 0;
    uint64_t first_n = 0, second_n = 0;
    for (const auto& [t, ttft] : it->second) {
      if (t < now - window_) continue;
      if (t < now - window_ / 2) {
        first += ttft;
        ++first_n;
      } else {
        second += ttft;
        ++second_n;
      }
    }
    if (first_n == 0 || second_n == 0) return false;
    return second / static_cast<double>(second_n) >=
           factor_ * (first / static_cast<double>(first_n));
  }

 private:
  Time window_;
  double factor_;
  std::map<uint32_t, std::deque<std::pair<Time, double>>> series_;
};

TEST(TtftOverloadDetectorTest, EveryAnswerAsSummingTheWindowAfresh) {
  // Many points per window, and a few (where exact ties are common).
  for (const auto& [factor, rate] : {std::pair{2.0, 20.0}, {1.5, 20.0}, {2.0, 0.6}, {1.0, 0.6}}) {
    sim::RandomStream rng(5, "test.ttft_overload");
    const Time window = FromSeconds(20);
    TtftOverloadDetector detector(window, factor);
    ScanningDetector reference(window, factor);
    Time now = 0;
    uint64_t overloaded = 0, calm = 0;
    for (int i = 0; i < 40000; ++i) {
      now += FromSeconds(rng.Exponential(rate));
      const uint32_t node = static_cast<uint32_t>(rng.UniformInt(3));
      if (rng.Uniform() < 0.6) {
        // Levels 1/4, 1/2 (calm phases) and 1, 2 (hot ones), tenths (whose sums
        // round), or any value.
        const bool hot = (now / FromSeconds(15)) % 2 == 1;
        const double u = rng.Uniform();
        const double level = static_cast<double>(rng.UniformInt(2) + (hot ? 2 : 0));
        const double ttft = u < 0.3   ? 0.1 * (1 + level)
                            : u < 0.7 ? 0.25 * std::exp2(level)
                                      : rng.Exponential(2);
        detector.Add(now, node, 0, ttft);
        reference.Add(now, node, ttft);
      } else {
        const bool answer = reference.Overloaded(node, now);
        ASSERT_EQ(detector.Overloaded(node, 0, now), answer)
            << "factor " << factor << " rate " << rate << " step " << i;
        (answer ? overloaded : calm) += 1;
      }
    }
    EXPECT_GT(overloaded, 100u) << factor;
    EXPECT_GT(calm, 100u) << factor;
  }
}

}  // namespace
}  // namespace kvroute::policies
