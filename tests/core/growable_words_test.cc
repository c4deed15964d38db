// GrowableWords: growth keeps every word written, copies are deep, moves
// leave the source empty, and asking for less never shrinks.
#include "sim/core/growable_words.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace kvroute::sim {
namespace {

void Fill(GrowableWords* words, size_t from, size_t to, uint64_t salt) {
  for (size_t i = from; i < to; ++i) (*words)[i] = i * 0x9e3779b97f4a7c15ULL + salt;
}

void ExpectFilled(const GrowableWords& words, size_t from, size_t to, uint64_t salt) {
  for (size_t i = from; i < to; ++i) {
    ASSERT_EQ(words[i], i * 0x9e3779b97f4a7c15ULL + salt) << "word " << i;
  }
}

TEST(GrowableWordsTest, GrowingKeepsTheWordsWritten) {
  GrowableWords words(1024);
  EXPECT_EQ(words.size(), 1024u);
  Fill(&words, 0, 1024, 1);
  // Past the sizes at which the C library maps a block on its own, so that
  // both in-heap and mapped growth are taken.
  for (size_t size = 2048; size <= (size_t{1} << 23); size *= 4) {
    const size_t old = words.size();
    words.Grow(size);
    ASSERT_EQ(words.size(), size);
    ExpectFilled(words, 0, old, 1);
    Fill(&words, old, size, 1);
  }
  words.Grow(10);  // never shrinks
  EXPECT_EQ(words.size(), size_t{1} << 23);
  ExpectFilled(words, 0, words.size(), 1);
}

// In the heap and mapped on their own.
TEST(GrowableWordsTest, CopiesAreDeepAndMovesEmptyTheSource) {
  for (size_t n : {size_t{300}, GrowableWords::kMappedBytes / sizeof(uint64_t) + 5}) {
    SCOPED_TRACE(n);
    GrowableWords a(n);
    Fill(&a, 0, n, 7);
    GrowableWords b = a;
    Fill(&a, 0, n, 8);  // the copy keeps its own words
    ExpectFilled(b, 0, n, 7);
    GrowableWords c;
    c = b;
    ExpectFilled(c, 0, n, 7);
    const GrowableWords& same = c;
    c = same;  // assigned to itself: keeps the words
    ExpectFilled(c, 0, n, 7);
    GrowableWords d = std::move(c);
    EXPECT_EQ(c.size(), 0u);
    EXPECT_EQ(c.data(), nullptr);
    ExpectFilled(d, 0, n, 7);
    a = std::move(d);
    EXPECT_EQ(d.size(), 0u);
    ExpectFilled(a, 0, n, 7);
    a.Grow(3 * n);  // a moved-in array grows as its own
    ExpectFilled(a, 0, n, 7);
    GrowableWords empty;
    a = empty;
    EXPECT_EQ(a.size(), 0u);
  }
}

}  // namespace
}  // namespace kvroute::sim
