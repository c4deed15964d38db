#include "analysis/fleet_search.h"

#include <cassert>
#include <cmath>
#include <map>

namespace kvroute::analysis {
namespace {

// Runs each fleet through the test once and records it.
class MemoTest {
 public:
  MemoTest(const FleetTest& meets, FleetSearchResult* result) : meets_(meets), result_(result) {}
  bool operator()(const Fleet& fleet) {
    if (auto it = seen_.find(fleet); it != seen_.end()) return it->second;
    const bool met = meets_(fleet);
    seen_.emplace(fleet, met);
    result_->tested.emplace_back(fleet, met);
    return met;
  }

 private:
  const FleetTest& meets_;
  FleetSearchResult* result_;
  std::map<Fleet, bool> seen_;
};

// The fewest replicas of kind `k` in [lo, hi], the other counts as in
// `fleet`, that meet the test; hi + 1 when even hi does not. Bisection: the
// test is monotone in the count.
uint32_t FewestOfKind(Fleet fleet, size_t k, uint32_t lo, uint32_t hi, MemoTest& test) {
  fleet[k] = hi;
  if (!test(fleet)) return hi + 1;
  // Invariant: `hi` meets; every count below `lo` is not known to.
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    fleet[k] = mid;
    if (test(fleet)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

struct MixSearch {
  std::span<const FleetKind> kinds;
  std::vector<uint32_t> caps;  // the most of each kind worth trying in a mix
  MemoTest& test;
  FleetSearchResult* result;

  // Counts of kinds [0, k) are fixed in `fleet` and cost `spent` per hour.
  void Search(Fleet& fleet, size_t k, double spent) {
    const size_t last = kinds.size() - 1;
    if (k == last) {
      // The last kind alone was bisected already (and no fleet is empty).
      if (spent == 0) return;
      // Only a count that costs strictly less than the best can improve it.
      const double room = (result->found ? result->usd_per_hour : INFINITY) - spent;
      if (!(room > 0)) return;
      double affordable = std::ceil(room / kinds[last].usd_per_replica_hour) - 1;
      uint32_t hi = caps[last];
      if (affordable < hi) hi = static_cast<uint32_t>(std::max(0.0, affordable));
      const uint32_t n = FewestOfKind(fleet, last, 0, hi, test);
      if (n > hi) return;
      fleet[last] = n;
      const double cost = spent + n * kinds[last].usd_per_replica_hour;
      if (!result->found || cost < result->usd_per_hour) {
        result->found = true;
        result->cheapest = fleet;
        result->usd_per_hour = cost;
      }
      fleet[last] = 0;
      return;
    }
    for (uint32_t c = 0; c <= caps[k]; ++c) {
      const double cost = spent + c * kinds[k].usd_per_replica_hour;
      if (result->found && cost >= result->usd_per_hour) break;
      fleet[k] = c;
      Search(fleet, k + 1, cost);
    }
    fleet[k] = 0;
  }
};

}  // namespace

double FleetUsdPerHour(std::span<const FleetKind> kinds, const Fleet& fleet) {
  double usd = 0;
  for (size_t k = 0; k < kinds.size(); ++k) usd += fleet[k] * kinds[k].usd_per_replica_hour;
  return usd;
}

FleetSearchResult FindCheapestFleet(std::span<const FleetKind> kinds, const FleetTest& meets,
                                    bool mixes) {
  assert(!kinds.empty());
  FleetSearchResult result;
  MemoTest test(meets, &result);
  const size_t n = kinds.size();
  for (size_t k = 0; k < n; ++k) {
    const uint32_t fewest = FewestOfKind(Fleet(n, 0), k, 1, kinds[k].max_replicas, test);
    const bool met = fewest <= kinds[k].max_replicas;
    result.single_kind_minimum.push_back(met ? fewest : 0);
    if (!met) continue;
    Fleet fleet(n, 0);
    fleet[k] = fewest;
    const double cost = FleetUsdPerHour(kinds, fleet);
    if (!result.found || cost < result.usd_per_hour) {
      result.found = true;
      result.cheapest = fleet;
      result.usd_per_hour = cost;
    }
  }
  if (!mixes || n < 2) return result;
  // A mix holding at least the fewest replicas of some kind that meet alone
  // costs more than those replicas alone: each count stays below its kind's
  // minimum (monotonicity, positive prices).
  std::vector<uint32_t> caps;
  for (size_t k = 0; k < n; ++k) {
    const uint32_t alone = result.single_kind_minimum[k];
    caps.push_back(alone > 0 ? alone - 1 : kinds[k].max_replicas);
  }
  MixSearch search{kinds, caps, test, &result};
  Fleet fleet(n, 0);
  search.Search(fleet, 0, 0);
  return result;
}

}  // namespace kvroute::analysis
