#include "policies/cacheroute_planner.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

struct Loaded {
  double load;
  uint32_t destination;
};

// Min-heap order on (load, destination): ties go to the lower index, which
// makes placement deterministic.
bool Heavier(const Loaded& a, const Loaded& b) {
  return a.load != b.load ? a.load > b.load : a.destination > b.destination;
}

}  // namespace

double RoutingPlan::ExpectedMaxOverMean() const {
  if (expected_load_.empty()) return 0;
  double sum = std::accumulate(expected_load_.begin(), expected_load_.end(), 0.0);
  if (sum <= 0) return 1;
  double mean = sum / static_cast<double>(expected_load_.size());
  return *std::max_element(expected_load_.begin(), expected_load_.end()) / mean;
}

RoutingPlan BuildPlan(std::span<const double> key_rates, const PlannerConfig& config) {
  assert(config.destinations > 0 && config.q_cap > 0);
  const uint32_t keys = static_cast<uint32_t>(key_rates.size());
  const uint32_t R = config.destinations;
  const uint64_t capacity = uint64_t{R} * config.slots_per_destination;  // C = R·W

  // Lines 1-3: k_b (eq. 2), capped at R distinct destinations.
  auto replicas_for = [&](double rate) {
    if (config.ablation == PlanAblation::kAffinityOnly) return 1u;
    double k = std::max(1.0, std::ceil(rate / config.q_cap));
    return static_cast<uint32_t>(std::min<double>(k, R));
  };

  // Line 4: decreasing λ_b; equal rates in key order.
  std::vector<uint32_t> order(keys);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return key_rates[a] > key_rates[b]; });

  // Lines 5-13: top-rate admission (eq. 3).
  std::vector<uint32_t> k(keys, 0);  // 0 = not admitted
  RoutingPlan plan;
  double total_rate = 0, admitted_rate = 0;
  for (uint32_t b : order) {
    total_rate += key_rates[b];
    if (key_rates[b] <= 0) continue;
    uint32_t kb = replicas_for(key_rates[b]);
    if (plan.slots_used_ + kb > capacity) continue;  // skip b, keep scanning
    k[b] = kb;
    plan.slots_used_ += kb;
    ++plan.admitted_keys_;
    admitted_rate += key_rates[b];
  }
  plan.cold_tail_rate_ = std::max(0.0, total_rate - admitted_rate);

  plan.offsets_.assign(keys + 1, 0);
  for (uint32_t b = 0; b < keys; ++b) plan.offsets_[b + 1] = plan.offsets_[b] + k[b];
  plan.members_.assign(plan.offsets_[keys], 0);

  // Line 14: every destination starts at its expected cold-tail load.
  std::vector<Loaded> heap(R);
  for (uint32_t r = 0; r < R; ++r) heap[r] = Loaded{plan.cold_tail_rate_ / R, r};
  std::make_heap(heap.begin(), heap.end(), Heavier);

  if (config.ablation != PlanAblation::kFull) {
    // Without LPT: key b's k_b shares on the distinct destinations that follow
    // its hashed home, (Mix64(b) + i) mod R.
    plan.expected_load_.assign(R, plan.cold_tail_rate_ / R);
    for (uint32_t b = 0; b < keys; ++b) {
      uint32_t home = static_cast<uint32_t>(sim::Mix64(b) % R);
      for (uint32_t i = 0; i < k[b]; ++i) {
        uint32_t d = (home + i) % R;
        plan.members_[plan.offsets_[b] + i] = d;
        plan.expected_load_[d] += key_rates[b] / k[b];
      }
    }
    return plan;
  }

  // Lines 15-20: LPT placement onto the k_b least-loaded distinct destinations.
  for (uint32_t b : order) {
    uint32_t kb = k[b];
    if (kb == 0) continue;
    double share = key_rates[b] / kb;
    Loaded* taken = heap.data() + heap.size() - kb;  // popped entries collect at the back
    for (uint32_t i = 0; i < kb; ++i) {
      std::pop_heap(heap.begin(), heap.end() - i, Heavier);
    }
    for (uint32_t i = 0; i < kb; ++i) {
      // The back holds pops in reverse order: the lightest is last.
      Loaded& chosen = taken[kb - 1 - i];
      plan.members_[plan.offsets_[b] + i] = chosen.destination;
      chosen.load += share;
    }
    for (uint32_t i = kb; i > 0; --i) {
      std::push_heap(heap.begin(), heap.end() - (i - 1), Heavier);
    }
  }

  plan.expected_load_.assign(R, 0);
  for (const Loaded& entry : heap) plan.expected_load_[entry.destination] = entry.load;
  return plan;
}

double PlanChurn(const RoutingPlan& before, const RoutingPlan& after) {
  size_t keys = std::max(before.keys(), after.keys());
  uint64_t considered = 0, changed = 0;
  std::vector<uint32_t> a, b;
  for (uint32_t key = 0; key < keys; ++key) {
    auto x = before.Members(key), y = after.Members(key);
    if (x.empty() && y.empty()) continue;
    ++considered;
    a.assign(x.begin(), x.end());
    b.assign(y.begin(), y.end());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) ++changed;
  }
  return considered == 0 ? 0 : static_cast<double>(changed) / static_cast<double>(considered);
}

double KbChangeShare(const RoutingPlan& before, const RoutingPlan& after) {
  const size_t keys = std::min(before.keys(), after.keys());
  uint64_t both = 0, changed = 0;
  for (uint32_t key = 0; key < keys; ++key) {
    const size_t a = before.Members(key).size(), b = after.Members(key).size();
    if (a == 0 || b == 0) continue;
    ++both;
    changed += a != b;
  }
  return both == 0 ? 0 : static_cast<double>(changed) / static_cast<double>(both);
}

}  // namespace kvroute::policies
