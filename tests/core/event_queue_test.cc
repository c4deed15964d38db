#include "sim/core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::sim {
namespace {

TEST(EventQueueTest, PopsInTimeOrder) {
  EventQueue q;
  q.Push(30, EventKind::kArrival, 3);
  q.Push(10, EventKind::kArrival, 1);
  q.Push(20, EventKind::kArrival, 2);
  EXPECT_EQ(q.Pop().target, 1u);
  EXPECT_EQ(q.Now(), 10);
  EXPECT_EQ(q.Pop().target, 2u);
  EXPECT_EQ(q.Pop().target, 3u);
  EXPECT_TRUE(q.Empty());
}

TEST(EventQueueTest, EqualTimesPopInInsertionOrder) {
  EventQueue q;
  for (uint32_t i = 0; i < 100; ++i) q.Push(5, EventKind::kIterationDone, i);
  for (uint32_t i = 0; i < 100; ++i) EXPECT_EQ(q.Pop().target, i);
}

// Against a reference: a stable sort by time of the same pushes, with pops
// interleaved at random and new pushes never earlier than the clock.
TEST(EventQueueTest, MatchesStableSortUnderInterleaving) {
  RandomStream rng(7, "test.event_queue");
  EventQueue q;
  std::vector<std::tuple<Time, uint64_t, uint32_t>> reference;  // (time, order, target)
  uint64_t order = 0;
  uint32_t next_target = 0;
  for (int step = 0; step < 20000; ++step) {
    if (reference.empty() || rng.Uniform() < 0.6) {
      Time t = q.Now() + static_cast<Time>(rng.UniformInt(5));  // many ties
      q.Push(t, EventKind::kArrival, next_target);
      reference.emplace_back(t, order++, next_target++);
    } else {
      auto it = std::min_element(reference.begin(), reference.end());
      Event e = q.Pop();
      ASSERT_EQ(e.time, std::get<0>(*it));
      ASSERT_EQ(e.target, std::get<2>(*it));
      reference.erase(it);
    }
  }
}

}  // namespace
}  // namespace kvroute::sim
