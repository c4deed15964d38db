// HashIndex and BlockHashIndex (which takes its keys' low bits unmixed)
// against std::unordered_map under random inserts, updates, erases (whose
// backward shifts move later entries of a probe run), growth and clears:
// every key's Find, present or absent, at every step.
#include "models/hash_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace kvroute::models {
namespace {

template <typename Index>
void ExpectAgreesWithAMap() {
  std::mt19937_64 draws(11);
  // Keys from a small pool, so that inserts, erases and finds of absent keys
  // all hit the same probe runs; uniform and non-zero, as block hashes are.
  std::vector<uint64_t> pool(4096);
  for (uint64_t& k : pool) k = std::max<uint64_t>(1, draws());
  Index index;
  std::unordered_map<uint64_t, uint32_t> expected;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t key = pool[draws() % pool.size()];
    const auto it = expected.find(key);
    switch (draws() % 8) {
      case 0:
      case 1:
      case 2:
        if (it == expected.end()) {
          const uint32_t value = static_cast<uint32_t>(draws() % 1000000);
          index.Insert(key, value);
          expected[key] = value;
        }
        break;
      case 3:
        if (it != expected.end()) {
          it->second = static_cast<uint32_t>(draws() % 1000000);
          index.Set(key, it->second);
        }
        break;
      case 4:
      case 5:
        if (it != expected.end()) {
          index.Erase(key);
          expected.erase(it);
        }
        break;
      case 6:
        if (draws() % 20000 == 0) {
          index.Clear();
          expected.clear();
        }
        break;
      default:
        break;
    }
    ASSERT_EQ(index.size(), expected.size());
    const uint64_t probe = pool[draws() % pool.size()];
    const auto found = expected.find(probe);
    index.Prefetch(probe);
    ASSERT_EQ(index.Find(probe), found == expected.end() ? Index::kAbsent : found->second);
  }
  for (uint64_t key : pool) {
    const auto found = expected.find(key);
    EXPECT_EQ(index.Find(key), found == expected.end() ? Index::kAbsent : found->second);
  }
}

TEST(HashIndexTest, AgreesWithAMapUnderRandomOperations) { ExpectAgreesWithAMap<HashIndex>(); }

TEST(HashIndexTest, BlockHashIndexAgreesWithAMapUnderRandomOperations) {
  ExpectAgreesWithAMap<BlockHashIndex>();
}

}  // namespace
}  // namespace kvroute::models
