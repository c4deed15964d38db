#include "sim/core/flat_hash_index.h"

#include <gtest/gtest.h>

#include <unordered_map>

#include "sim/core/random_stream.h"

namespace kvroute::sim {
namespace {

TEST(FlatHashIndexTest, FindInsertErase) {
  FlatHashIndex index(8);
  EXPECT_EQ(index.Find(42), FlatHashIndex::kAbsent);
  index.Insert(42, 7);
  EXPECT_EQ(index.Find(42), 7u);
  index.Erase(42);
  EXPECT_EQ(index.Find(42), FlatHashIndex::kAbsent);
  EXPECT_EQ(index.Size(), 0u);
}

// Random inserts and erases against std::unordered_map, with a small key
// space so probe runs collide and backward shifts happen often.
TEST(FlatHashIndexTest, AgreesWithUnorderedMap) {
  const uint32_t capacity = 512;
  FlatHashIndex index(capacity);
  std::unordered_map<uint64_t, uint32_t> reference;
  RandomStream rng(11, "test.flat_hash_index");
  for (int step = 0; step < 200000; ++step) {
    uint64_t key = 1 + rng.UniformInt(1500);
    bool present = reference.count(key) > 0;
    if (!present && reference.size() < capacity && rng.Uniform() < 0.55) {
      uint32_t value = static_cast<uint32_t>(step);
      index.Insert(key, value);
      reference[key] = value;
    } else if (present && rng.Uniform() < 0.5) {
      index.Erase(key);
      reference.erase(key);
    }
    uint64_t probe = 1 + rng.UniformInt(1500);
    auto it = reference.find(probe);
    ASSERT_EQ(index.Find(probe), it == reference.end() ? FlatHashIndex::kAbsent : it->second);
  }
  EXPECT_EQ(index.Size(), reference.size());
  for (const auto& [key, value] : reference) EXPECT_EQ(index.Find(key), value);
}

}  // namespace
}  // namespace kvroute::sim
