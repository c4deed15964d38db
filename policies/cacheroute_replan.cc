#include "policies/cacheroute_replan.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kvroute::policies {

PlanOutlook Evaluate(const RoutingPlan& plan, std::span<const double> rates) {
  const size_t destinations = plan.expected_load().size();
  PlanOutlook outlook;
  if (destinations == 0) return outlook;
  std::vector<double> load(destinations, 0);
  double total = 0;
  for (uint32_t b = 0; b < rates.size(); ++b) {
    total += rates[b];
    auto members = plan.Members(b);
    if (members.empty()) continue;
    outlook.warm_rate += rates[b];
    for (uint32_t d : members) load[d] += rates[b] / static_cast<double>(members.size());
  }
  double cold_share = (total - outlook.warm_rate) / static_cast<double>(destinations);
  for (double l : load) outlook.max_load = std::max(outlook.max_load, l + cold_share);
  return outlook;
}

uint64_t NewAssignments(const RoutingPlan& before, const RoutingPlan& after) {
  uint64_t added = 0;
  for (uint32_t b = 0; b < after.keys(); ++b) {
    auto old = before.Members(b);
    for (uint32_t d : after.Members(b)) {
      if (std::find(old.begin(), old.end(), d) == old.end()) ++added;
    }
  }
  return added;
}

bool FreshPlanPaysOff(const RoutingPlan& held, const RoutingPlan& fresh,
                      std::span<const double> rates, double interval_s, double misses_per_move) {
  PlanOutlook h = Evaluate(held, rates), f = Evaluate(fresh, rates);
  double staleness =
      interval_s * ((f.warm_rate - h.warm_rate) + std::max(0.0, h.max_load - f.max_load));
  double rewarm = misses_per_move * static_cast<double>(NewAssignments(held, fresh));
  return staleness > rewarm;
}

RoutingPlan BuildPlanFrom(const RoutingPlan& previous, std::span<const double> rates,
                          const PlannerConfig& config, double slack) {
  RoutingPlan plan = BuildPlan(rates, config);
  if (config.ablation != PlanAblation::kFull) return plan;
  const uint32_t R = config.destinations;
  const double bound =
      (1 + slack) * *std::max_element(plan.expected_load_.begin(), plan.expected_load_.end());
  std::vector<double> load(R, plan.cold_tail_rate_ / R);
  std::vector<uint32_t> order(rates.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rates[a] > rates[b]; });
  for (uint32_t b : order) {
    uint32_t* members = plan.members_.data() + plan.offsets_[b];
    const uint32_t kb = plan.offsets_[b + 1] - plan.offsets_[b];
    if (kb == 0) continue;
    const double share = rates[b] / kb;
    uint32_t chosen = 0;
    for (uint32_t d : previous.Members(b)) {
      if (chosen < kb && d < R && load[d] + share <= bound) {
        members[chosen++] = d;
        load[d] += share;
      }
    }
    for (; chosen < kb; ++chosen) {
      uint32_t best = UINT32_MAX;
      for (uint32_t d = 0; d < R; ++d) {
        if (std::find(members, members + chosen, d) != members + chosen) continue;
        if (best == UINT32_MAX || load[d] < load[best]) best = d;
      }
      members[chosen] = best;
      load[best] += share;
    }
  }
  plan.expected_load_ = std::move(load);
  return plan;
}

RoutingPlan PlanFromTable(std::span<const std::vector<uint32_t>> members, uint32_t destinations) {
  RoutingPlan plan;
  plan.offsets_.reserve(members.size() + 1);
  plan.offsets_.push_back(0);
  for (const std::vector<uint32_t>& m : members) {
    plan.members_.insert(plan.members_.end(), m.begin(), m.end());
    plan.offsets_.push_back(static_cast<uint32_t>(plan.members_.size()));
    if (!m.empty()) ++plan.admitted_keys_;
    plan.slots_used_ += m.size();
  }
  plan.expected_load_.assign(destinations, 0);
  return plan;
}

}  // namespace kvroute::policies
