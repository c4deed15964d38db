// The fixed hash functions every run's hashes come from (sim/core/hashing.h):
// SplitMix64's published first output, Combine as its two halves, and the
// chained block hash's one special case, a mix of 0, reached by inverting the
// finalizer.
#include "sim/core/hashing.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace kvroute::sim {
namespace {

uint64_t UndoXorShift(uint64_t v, int shift) {
  uint64_t x = v;
  for (int i = 0; i < 64 / shift + 1; ++i) x = v ^ (x >> shift);
  return x;
}

// The inverse of an odd multiplier modulo 2^64 (Newton's iteration).
uint64_t InverseOf(uint64_t m) {
  uint64_t inverse = m;
  for (int i = 0; i < 6; ++i) inverse *= 2 - m * inverse;
  return inverse;
}

// The x with Mix64(x) == y.
uint64_t UnMix64(uint64_t y) {
  uint64_t x = UndoXorShift(y, 31) * InverseOf(kMix64Multiplier2);
  x = UndoXorShift(x, 27) * InverseOf(kMix64Multiplier1);
  return UndoXorShift(x, 30) - kMix64Gamma;
}

TEST(HashingTest, Mix64IsSplitMix64sFinalizer) {
  // splitmix64 seeded with 0 first returns Mix64(0) (Vigna's reference code).
  EXPECT_EQ(Mix64(0), 0xe220a8397b1dcdafULL);
  for (uint64_t x : {uint64_t{1}, uint64_t{0x0123456789abcdef}, ~uint64_t{0}}) {
    EXPECT_EQ(UnMix64(Mix64(x)), x);
  }
}

TEST(HashingTest, CombineIsTheChainOverThePremixedRightHalf) {
  for (uint64_t a : {uint64_t{0}, uint64_t{7}, ~uint64_t{0}}) {
    for (uint64_t b : {uint64_t{0}, uint64_t{9}, uint64_t{1} << 63}) {
      EXPECT_EQ(Combine(a, b), Mix64(a ^ PremixRight(b)));
      const uint64_t h = Mix64(a ^ PremixRight(b));
      EXPECT_EQ(ChainBlockHash(a, b), h == 0 ? 1 : h);
      EXPECT_EQ(ChainPremixed(a, PremixRight(b)), ChainBlockHash(a, b));
    }
  }
}

TEST(HashingTest, AChainedHashIsNeverZero) {
  const uint64_t previous = 0x5eed;
  const uint64_t premixed = UnMix64(0) ^ previous;  // mixes to exactly 0
  ASSERT_EQ(Mix64(previous ^ premixed), 0u);
  EXPECT_EQ(ChainPremixed(previous, premixed), 1u);
  EXPECT_EQ(ChainPremixed(previous, premixed ^ 1), Mix64(previous ^ premixed ^ 1));
}

}  // namespace
}  // namespace kvroute::sim
