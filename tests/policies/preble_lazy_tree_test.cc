// Preble's tree fed requests' prompts, whose new leaves are hashed only when
// a later prompt reaches into them (PrebleTree::Insert of RequestHashes),
// against the tree fed whole chains: after every prompt of random traffic
// the same node, the same splits, and every node with the same parent and
// lengths (and, in both, largeness as its lengths say); finds of earlier
// prompts agree. Prompts repeat, extend and stop short inside earlier ones'
// own new tokens, so leaves are hashed late and then split.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request.h"
#include "policies/preble_tree.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

constexpr uint32_t kBlock = 16;

using Segments = std::vector<models::PromptSegment>;

bool SameSplits(const std::vector<PrebleTree::Split>& a, const std::vector<PrebleTree::Split>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].child != b[i].child || a[i].parent != b[i].parent) return false;
  }
  return true;
}

TEST(PrebleLazyTreeTest, EveryStepAsTheTreeOfWholeChains) {
  auto hasher = std::make_shared<models::SequenceHasher>(kBlock);
  sim::RandomStream rng(17, "test.preble_lazy_tree");
  PrebleTree lazy, whole;
  std::vector<Segments> sent;
  std::vector<std::vector<uint64_t>> chains;
  std::vector<PrebleTree::Split> lazy_splits, whole_splits;
  uint64_t unique = 0;
  for (int i = 0; i < 3000; ++i) {
    Segments segments;
    const double u = rng.Uniform();
    if (u < 0.3 && !sent.empty()) {
      // An earlier prompt again, stopped short inside its last segment or
      // extended past it.
      segments = sent[rng.UniformInt(sent.size())];
      models::PromptSegment& last = segments.back();
      if (rng.Uniform() < 0.5) {
        last.tokens = static_cast<uint32_t>(rng.UniformInt(uint64_t{last.tokens} + 1));
      } else {
        segments.push_back(
            {sim::Combine(3, ++unique), static_cast<uint32_t>(rng.UniformInt(3000))});
      }
    } else {
      // A document (odd lengths, so what follows starts inside a block),
      // sometimes one of its sections, then sometimes new tokens.
      const uint64_t document = rng.UniformInt(8);
      segments.push_back(
          {sim::Combine(1, document), static_cast<uint32_t>(rng.UniformInt(2000) + 1)});
      if (rng.Uniform() < 0.3) {
        segments.push_back({sim::Combine(2, document * 10 + rng.UniformInt(3)),
                            static_cast<uint32_t>(rng.UniformInt(1500))});
      }
      if (rng.Uniform() < 0.7) {
        segments.push_back(
            {sim::Combine(3, ++unique), static_cast<uint32_t>(rng.UniformInt(3000))});
      }
    }
    models::Request request;
    request.hashes.HashLater(hasher, segments, {sim::Combine(4, ++unique), 0});
    std::vector<uint64_t> chain;
    models::HashPromptBlocks(segments, kBlock, &chain);
    lazy_splits.clear();
    whole_splits.clear();
    const uint32_t got = lazy.Insert(request.hashes, &lazy_splits);
    const uint32_t want = whole.Insert(chain, &whole_splits);
    ASSERT_EQ(got, want) << "prompt " << i;
    ASSERT_TRUE(SameSplits(lazy_splits, whole_splits)) << "prompt " << i;
    ASSERT_EQ(lazy.size(), whole.size()) << "prompt " << i;
    for (uint32_t n = 1; n < whole.size(); ++n) {
      ASSERT_EQ(lazy.parent(n), whole.parent(n)) << "prompt " << i << " node " << n;
      ASSERT_EQ(lazy.blocks(n), whole.blocks(n)) << "prompt " << i << " node " << n;
      ASSERT_EQ(lazy.context_blocks(n), whole.context_blocks(n)) << "prompt " << i;
      // is_large_node, kept per node, as it reads from the node's lengths.
      for (const PrebleTree* tree : {&lazy, &whole}) {
        ASSERT_EQ(tree->large(n), tree->blocks(n) > tree->context_so_far(n))
            << "prompt " << i << " node " << n;
      }
    }
    if (i % 50 == 0 && !chains.empty()) {
      const std::vector<uint64_t>& earlier = chains[rng.UniformInt(chains.size())];
      ASSERT_EQ(lazy.Find(earlier), whole.Find(earlier)) << "prompt " << i;
    }
    sent.push_back(segments);
    chains.push_back(chain);
  }
}

}  // namespace
}  // namespace kvroute::policies
