#include "sim/runner/point_setup.h"

#include <algorithm>
#include <utility>

namespace kvroute::sim {
namespace {

constexpr size_t kTrackedTenants = 4;

}  // namespace

std::vector<uint32_t> TopTenants(const std::vector<double>& shares) {
  std::vector<uint32_t> order(shares.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  size_t n = std::min(kTrackedTenants, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](uint32_t a, uint32_t b) {
                      return shares[a] != shares[b] ? shares[a] > shares[b] : a < b;
                    });
  order.resize(n);
  return order;
}

std::unique_ptr<models::CostModel> MakeCostModel(const Scenario& scenario,
                                                 const models::Profile& profile) {
  if (scenario.fixed_iteration_s > 0) {
    return std::make_unique<models::FixedCostModel>(FromSeconds(scenario.fixed_iteration_s));
  }
  return std::make_unique<models::PhysicalCostModel>(profile);
}

std::unique_ptr<StaleCacheView> MakeEventView(
    const Scenario& scenario, uint64_t seed, const ReplicaCacheOracle& exact,
    const std::vector<std::unique_ptr<models::Replica>>& replicas, std::function<Time()> clock) {
  if (!scenario.kv_events.enabled) return nullptr;
  auto view = std::make_unique<StaleCacheView>(
      static_cast<uint32_t>(replicas.size()), FromSeconds(scenario.kv_events.delay_s),
      scenario.kv_events.loss, seed, exact, std::move(clock));
  for (uint32_t r = 0; r < replicas.size(); ++r) {
    replicas[r]->set_kv_event_listener(view->publisher(r));
  }
  return view;
}

}  // namespace kvroute::sim
