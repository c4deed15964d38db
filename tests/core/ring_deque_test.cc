#include "sim/core/ring_deque.h"

#include <gtest/gtest.h>

#include <vector>

namespace kvroute::sim {
namespace {

std::vector<int> Items(const RingDeque<int>& q) {
  std::vector<int> out;
  for (size_t i = 0; i < q.size(); ++i) out.push_back(q[i]);
  return out;
}

TEST(RingDequeTest, EraseKeepsOrderAcrossTheWrap) {
  RingDeque<int> q;
  for (int i = 0; i < 16; ++i) q.push_back(i);
  for (int i = 0; i < 10; ++i) q.pop_front();  // head near the end of the buffer
  for (int i = 16; i < 22; ++i) q.push_back(i);
  q.push_front(9);
  ASSERT_EQ(Items(q), (std::vector<int>{9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}));
  q.erase(5);  // 14, before the wrap
  q.erase(6);  // 16, after it
  q.erase(0);
  q.erase(q.size() - 1);
  EXPECT_EQ(Items(q), (std::vector<int>{10, 11, 12, 13, 15, 17, 18, 19, 20}));
  q.push_back(30);
  EXPECT_EQ(q.front(), 10);
  EXPECT_EQ(Items(q).back(), 30);
}

}  // namespace
}  // namespace kvroute::sim
