// Preble's windowed histogram keeps per-GPU running sums and node lists that
// rebalancing reads after almost every request (preble_histogram.h); here
// they are checked against a scan of the whole tree after every step of
// random traffic: routes that split nodes, completions, expiries, subtree
// moves and replications; so are the branches a move walks. A fixed-time
// cost model prices every prefill at 10 ms, so every share is a whole number
// of nanoseconds.
#include "policies/preble_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/cost_model.h"
#include "policies/cost_estimate.h"
#include "policies/preble_tree.h"
#include "sim/core/random_stream.h"

namespace kvroute::policies {
namespace {

using sim::FromSeconds;

constexpr uint32_t kGpus = 4;

class PrebleHistogramTest : public ::testing::Test {
 protected:
  PrebleHistogramTest()
      : fixed_(FromSeconds(0.01)),
        estimator_(Context()),
        histogram_(tree_, estimator_, kGpus, FromSeconds(200), 16),
        rng_(11, "test.preble_histogram") {}

  PolicyContext Context() {
    PolicyContext ctx;
    ctx.num_replicas = kGpus;
    ctx.cost_model = &fixed_;
    return ctx;
  }

  // The first blocks of one of a few documents, or all of it and then one
  // of its few sections, then sometimes a tail of blocks no other prompt
  // has: prompts end inside earlier ones, extend them and diverge from
  // them, so nodes split and turn large or small. A section or tail longer
  // than what precedes it is a window node of its own below the document's,
  // and a section is shared, so busy nodes are moved with their ancestors.
  std::vector<uint64_t> Prompt() {
    const uint64_t document = rng_.UniformInt(6);
    std::vector<uint64_t> chain;
    const bool sectioned = rng_.Uniform() < 0.4;
    const uint64_t length = sectioned ? 24 : 1 + rng_.UniformInt(24);
    for (uint64_t j = 1; j <= length; ++j) chain.push_back(document * 1000 + j);
    if (sectioned) {
      const uint64_t section = rng_.UniformInt(3), section_length = 1 + rng_.UniformInt(40);
      for (uint64_t j = 1; j <= section_length; ++j) {
        chain.push_back(100'000 + document * 1000 + section * 100 + j);
      }
    }
    const uint64_t tail = rng_.Uniform() < 0.5 ? rng_.UniformInt(30) : 0;
    for (uint64_t j = 0; j < tail; ++j) chain.push_back(1'000'000 + next_unique_++);
    return chain;
  }

  void Route(sim::Time now) {
    splits_.clear();
    const uint32_t leaf = tree_.Insert(Prompt(), &splits_);
    for (const PrebleTree::Split& split : splits_) histogram_.OnSplit(split);
    if (leaf == PrebleTree::kRoot) return;
    uint32_t important = leaf;
    while (!tree_.large(important)) important = tree_.parent(important);
    // Most requests follow the important node's first GPU, as Preble
    // routes a prefix's requests where it is cached: busy nodes then stay on
    // one GPU, and a move meets them there.
    const std::span<const uint32_t> on = tree_.allocation(important);
    const bool follow = !on.empty() && rng_.Uniform() < 0.8;
    const auto gpu = follow ? on[0] : static_cast<uint32_t>(rng_.UniformInt(kGpus));
    histogram_.AllocatePath(leaf, gpu);
    histogram_.AddRefsOnPath(leaf, gpu, +1);
    histogram_.Record(now, important, leaf, static_cast<uint32_t>(1 + rng_.UniformInt(200)));
    in_flight_.emplace_back(leaf, gpu);
  }

  // A window node at random, or kNone when the window is empty.
  uint32_t AnyWindowNode() {
    std::vector<uint32_t> nodes;
    for (uint32_t n = 0; n < tree_.size(); ++n) {
      if (histogram_.InWindow(n)) nodes.push_back(n);
    }
    return nodes.empty() ? PrebleTree::kNone : nodes[rng_.UniformInt(nodes.size())];
  }

  static std::vector<uint32_t> Sorted(std::span<const uint32_t> nodes) {
    std::vector<uint32_t> v(nodes.begin(), nodes.end());
    std::sort(v.begin(), v.end());
    return v;
  }

  // Every GPU's lists and costs against the window nodes found by a scan.
  std::string Check() const {
    for (uint32_t g = 0; g < kGpus; ++g) {
      std::vector<uint32_t> busy;
      double prefill = 0, decode = 0, busy_prefill = 0, busy_decode = 0;
      for (uint32_t n = 0; n < tree_.size(); ++n) {
        if (!histogram_.InWindow(n) || !tree_.allocated(n, g)) continue;
        // NodeCost at TPOT 0 is the node's prefill share; at TPOT 1 s, plus
        // its decode tokens in flight on g.
        const double share = histogram_.NodeCost(n, g, 0);
        const double tokens = histogram_.NodeCost(n, g, 1) - share;
        prefill += share;
        decode += tokens;
        if (histogram_.Count(n) >= 2) {
          busy.push_back(n);
          busy_prefill += share;
          busy_decode += tokens;
        }
      }
      if (Sorted(histogram_.BusyNodesOn(g)) != busy) return "busy nodes on " + std::to_string(g);
      auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * (1 + std::abs(b)); };
      if (!near(histogram_.Cost(g, 0), prefill)) return "prefill on " + std::to_string(g);
      if (!near(histogram_.Cost(g, 1) - histogram_.Cost(g, 0), decode)) {
        return "decode on " + std::to_string(g);
      }
      if (!near(histogram_.Cost(g, 0, true), busy_prefill)) return "busy prefill";
      if (!near(histogram_.Cost(g, 1, true) - histogram_.Cost(g, 0, true), busy_decode)) {
        return "busy decode on " + std::to_string(g);
      }
    }
    return CheckBranches();
  }

  // Each node's window branches against its children found by a scan to
  // hold window nodes; a list that repeats a child is wrong too.
  std::string CheckBranches() const {
    std::vector<bool> holds(tree_.size(), false);
    for (uint32_t n = 0; n < tree_.size(); ++n) {
      if (!histogram_.InWindow(n)) continue;
      for (uint32_t a = n; a != PrebleTree::kNone && !holds[a]; a = tree_.parent(a))
        holds[a] = true;
    }
    std::vector<std::vector<uint32_t>> expected(tree_.size());
    for (uint32_t n = 1; n < tree_.size(); ++n) {
      if (holds[n]) expected[tree_.parent(n)].push_back(n);
    }
    for (uint32_t n = 0; n < tree_.size(); ++n) {
      const std::span<const uint32_t> listed = histogram_.WindowBranches(n);
      if (Sorted(listed) != expected[n]) return "window branches of node " + std::to_string(n);
    }
    return "";
  }

  models::FixedCostModel fixed_;
  PrebleTree tree_;
  CostEstimator estimator_;
  PrebleHistogram histogram_;
  sim::RandomStream rng_;
  std::vector<PrebleTree::Split> splits_;
  std::vector<std::pair<uint32_t, uint32_t>> in_flight_;  // (leaf, gpu)
  uint64_t next_unique_ = 0;
};

TEST_F(PrebleHistogramTest, RunningSumsAndListsEqualAScanAfterEveryStep) {
  sim::Time now = 0;
  uint64_t moves = 0, busy_seen = 0;
  for (int step = 0; step < 3000; ++step) {
    now += FromSeconds(rng_.Exponential(1.0));
    const double u = rng_.Uniform();
    if (u < 0.55) {
      Route(now);
    } else if (u < 0.85) {
      if (!in_flight_.empty()) {
        const size_t i = rng_.UniformInt(in_flight_.size());
        histogram_.AddRefsOnPath(in_flight_[i].first, in_flight_[i].second, -1);
        in_flight_[i] = in_flight_.back();
        in_flight_.pop_back();
      }
    } else if (const uint32_t n = AnyWindowNode(); n != PrebleTree::kNone) {
      const auto gpu = static_cast<uint32_t>(rng_.UniformInt(kGpus));
      if (u < 0.95) {
        // Often from an ancestor, so that moves carry window nodes below.
        uint32_t root = n;
        while (tree_.parent(root) != PrebleTree::kRoot && rng_.Uniform() < 0.7) {
          root = tree_.parent(root);
        }
        histogram_.MoveSubtree(root, gpu);
        ++moves;
      } else {
        histogram_.Replicate(n, gpu);
      }
    }
    for (uint32_t g = 0; g < kGpus; ++g) busy_seen += histogram_.BusyNodesOn(g).size();
    const std::string error = Check();
    ASSERT_EQ(error, "") << "step " << step;
  }
  EXPECT_GT(moves, 100u);
  EXPECT_GT(busy_seen, 1000u);
}

}  // namespace
}  // namespace kvroute::policies
