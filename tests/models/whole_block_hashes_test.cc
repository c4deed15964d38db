// The hashes of whole blocks inside a segment (whole_block_hashes.h): one by
// one they are the chained block hashes' definition, and eight at a time the
// same, for every count (full lanes and a remainder), chain, salt, block size
// and offset, up to the last tokens a 32-bit offset reaches.
#include "models/whole_block_hashes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

// The definition, block by block (DESIGN.md, "Requests").
std::vector<uint64_t> Definition(uint64_t chain, uint64_t salt, uint32_t offset,
                                 uint32_t block_size, uint32_t count) {
  std::vector<uint64_t> hashes;
  for (uint32_t b = 0; b < count; ++b) {
    const uint64_t where = (static_cast<uint64_t>(offset + b * block_size) << 32) | block_size;
    chain = sim::ChainBlockHash(chain, sim::Combine(0, sim::Combine(salt, where)));
    hashes.push_back(chain);
  }
  return hashes;
}

struct Case {
  uint64_t chain, salt;
  uint32_t offset, block_size, count;
};

std::vector<Case> Cases() {
  sim::RandomStream rng(5, "test.whole_block_hashes");
  std::vector<Case> cases;
  for (uint32_t count = 0; count <= 41; ++count) {
    for (uint32_t block_size : {1u, 16u, 64u}) {
      const uint64_t tokens = uint64_t{count} * block_size;
      // Offsets from 0 to the last one whose blocks still fit in 32 bits.
      for (uint64_t offset :
           {uint64_t{0}, rng.UniformInt(1u << 20), (uint64_t{1} << 32) - tokens}) {
        if (offset >= (uint64_t{1} << 32) || offset + tokens > (uint64_t{1} << 32)) continue;
        cases.push_back(
            {rng.NextU64(), rng.NextU64(), static_cast<uint32_t>(offset), block_size, count});
      }
    }
  }
  return cases;
}

TEST(WholeBlockHashesTest, OneByOneIsTheDefinition) {
  for (const Case& c : Cases()) {
    std::vector<uint64_t> got(c.count);
    const uint64_t last =
        HashWholeBlocksOneByOne(c.chain, c.salt, c.offset, c.block_size, c.count, got.data());
    const std::vector<uint64_t> want = Definition(c.chain, c.salt, c.offset, c.block_size, c.count);
    ASSERT_EQ(got, want) << "count " << c.count << " offset " << c.offset;
    EXPECT_EQ(last, c.count == 0 ? c.chain : want.back());
  }
}

TEST(WholeBlockHashesTest, EightAtATimeGivesTheSameHashes) {
  if (!WideBlockHashing()) GTEST_SKIP() << "this CPU has no AVX-512F and DQ";
  for (const Case& c : Cases()) {
    std::vector<uint64_t> wide(c.count), one(c.count);
    const uint64_t wide_last =
        HashWholeBlocksWide(c.chain, c.salt, c.offset, c.block_size, c.count, wide.data());
    const uint64_t one_last =
        HashWholeBlocksOneByOne(c.chain, c.salt, c.offset, c.block_size, c.count, one.data());
    ASSERT_EQ(wide, one) << "count " << c.count << " offset " << c.offset;
    EXPECT_EQ(wide_last, one_last);
  }
}

TEST(WholeBlockHashesTest, TheChosenWayGivesTheSameHashes) {
  for (const Case& c : Cases()) {
    std::vector<uint64_t> got(c.count);
    HashWholeBlocks(c.chain, c.salt, c.offset, c.block_size, c.count, got.data());
    ASSERT_EQ(got, Definition(c.chain, c.salt, c.offset, c.block_size, c.count));
  }
}

}  // namespace
}  // namespace kvroute::models
