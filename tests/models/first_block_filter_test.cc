// FirstBlockFilter against the trees it counts: several BlockRunTrees under
// random chains added, split, extended, pruned and cleared, one attached
// late with nodes already in it. After every step the filter says "maybe"
// for a hash exactly when some tree has a node starting with a hash of the
// same slot (so never a false "no", and no stale "maybe" once the last such
// node goes), and keeps at least 16 slots per node as it grows.
#include "models/first_block_filter.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/block_run_tree.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kTrees = 4;

// Chained hashes of a random path: a shared stem of up to 3 of 6 first
// blocks, then blocks of its own.
std::vector<uint64_t> RandomChain(sim::RandomStream& rng, uint64_t* salt) {
  std::vector<uint64_t> chain;
  uint64_t h = 1;
  const uint64_t stem = rng.UniformInt(6);
  const uint32_t shared = static_cast<uint32_t>(rng.UniformInt(4));
  for (uint32_t j = 0; j < shared; ++j) chain.push_back(h = sim::Combine(h, stem * 10 + j));
  const uint32_t own = 1 + static_cast<uint32_t>(rng.UniformInt(6));
  for (uint32_t j = 0; j < own; ++j) chain.push_back(h = sim::Combine(h, 1000 + ++*salt));
  return chain;
}

// Inserts `chain` as a radix tree would: walks the matched nodes, splits
// where it leaves one, adds the rest as a leaf (or appends it to a leaf).
void Insert(BlockRunTree& tree, const std::vector<uint64_t>& chain, sim::RandomStream& rng) {
  const BlockChain c(chain);
  uint32_t node = BlockRunTree::kRoot, pos = 0;
  while (pos < c.size()) {
    const uint32_t child = tree.Child(chain[pos]);
    if (child == BlockRunTree::kNone) {
      if (node != BlockRunTree::kRoot && tree.children(node) == 0 && rng.Uniform() < 0.3) {
        tree.Append(node, c, pos, c.size());
      } else {
        tree.AddChild(node, c, pos, c.size());
      }
      return;
    }
    const uint32_t matched = tree.MatchRun(child, c, pos, c.size());
    pos += matched;
    node = matched < tree.length(child) ? tree.Split(child, matched) : child;
  }
}

void RemoveRandomLeaf(BlockRunTree& tree, sim::RandomStream& rng) {
  std::vector<uint32_t> leaves;
  for (uint32_t n = 1; n < tree.node_slots(); ++n) {
    if (tree.live(n) && tree.children(n) == 0) leaves.push_back(n);
  }
  if (!leaves.empty()) tree.Remove(leaves[rng.UniformInt(leaves.size())]);
}

TEST(FirstBlockFilterTest, MaybeExactlyWhereASlotHasANodeStart) {
  sim::RandomStream rng(5, "test.first_block_filter");
  std::vector<std::unique_ptr<BlockRunTree>> trees;
  for (uint32_t t = 0; t < kTrees; ++t) trees.push_back(std::make_unique<BlockRunTree>());
  auto filter = std::make_unique<FirstBlockFilter>();
  for (uint32_t t = 0; t + 1 < kTrees; ++t) filter->Attach(trees[t].get());
  uint64_t salt = 0;
  std::vector<uint64_t> asked;  // hashes once in a tree, and hashes never in one
  for (int step = 0; step < 4000; ++step) {
    if (step == 1500) filter->Attach(trees[kTrees - 1].get());  // with its nodes
    BlockRunTree& tree = *trees[rng.UniformInt(kTrees)];
    const double u = rng.Uniform();
    if (u < 0.6) {
      const std::vector<uint64_t> chain = RandomChain(rng, &salt);
      Insert(tree, chain, rng);
      asked.insert(asked.end(), chain.begin(), chain.end());
    } else if (u < 0.995) {
      RemoveRandomLeaf(tree, rng);
    } else {
      tree.Clear();
    }
    asked.push_back(sim::Combine(99, ++salt));
    // The slots some attached tree has a node start in.
    std::vector<uint8_t> started(filter->slots(), 0);
    uint64_t nodes = 0;
    for (uint32_t t = 0; t < kTrees; ++t) {
      if (step < 1500 && t == kTrees - 1) continue;
      for (uint32_t n = 1; n < trees[t]->node_slots(); ++n) {
        if (!trees[t]->live(n)) continue;
        started[filter->Slot(trees[t]->first(n))] = 1;
        ++nodes;
      }
    }
    ASSERT_GE(filter->slots(), 16 * nodes) << "step " << step;
    for (size_t k = asked.size() > 400 ? asked.size() - 400 : 0; k < asked.size(); ++k) {
      ASSERT_EQ(filter->MayStart(asked[k]), started[filter->Slot(asked[k])] != 0)
          << "step " << step << " hash " << k;
    }
  }
  EXPECT_GT(filter->slots(), size_t{1} << 12);  // it grew
  // Destroyed first, it leaves the trees counting into nothing.
  filter.reset();
  for (auto& tree : trees) {
    EXPECT_EQ(tree->first_block_filter(), nullptr);
    Insert(*tree, RandomChain(rng, &salt), rng);
    tree->Clear();
  }
}

}  // namespace
}  // namespace kvroute::models
