// The cheapest fleet that meets an SLO (issue 15, "sizing"): given kinds of
// replica (a profile: GPU kind x tensor parallelism, each with a price per
// replica-hour and a largest count to try) and a test of whether a fleet
// meets the SLO, the fleet of least dollars per hour that passes.
//
// The search assumes the test is monotone: a fleet that meets the SLO still
// meets it with a replica added. Under that assumption it is exact (tested
// against brute force), and it bisects where brute force would count: one
// bisection per kind alone, and with `mixes`, one bisection of the last kind's
// count per combination of the other kinds' counts that could still be
// cheaper than the best fleet so far. Seed 003 (appendix, Table 14) shows
// that prefix-affinity routing can break monotonicity (a larger cluster makes
// pinned prefixes colder); callers report the neighbours of the answer.
#ifndef KVROUTE_ANALYSIS_FLEET_SEARCH_H_
#define KVROUTE_ANALYSIS_FLEET_SEARCH_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvroute::analysis {

struct FleetKind {
  std::string name;
  double usd_per_replica_hour = 0;  // > 0
  uint32_t max_replicas = 1;        // the search tries no more than this many
};

using Fleet = std::vector<uint32_t>;  // replicas of each kind, in the kinds' order

// The replicas of every kind together.
inline uint64_t ReplicasIn(const Fleet& fleet) {
  uint64_t total = 0;
  for (uint32_t n : fleet) total += n;
  return total;
}
using FleetTest = std::function<bool(const Fleet&)>;

struct FleetSearchResult {
  bool found = false;
  Fleet cheapest;           // valid when found
  double usd_per_hour = 0;  // of `cheapest`
  // Per kind: the fewest replicas of that kind alone that meet the SLO, 0 when
  // even max_replicas do not (the runner-up configurations).
  std::vector<uint32_t> single_kind_minimum;
  // Every fleet tested, in the order tested, with the outcome; each once.
  std::vector<std::pair<Fleet, bool>> tested;
};

double FleetUsdPerHour(std::span<const FleetKind> kinds, const Fleet& fleet);

// REQUIRES: kinds non-empty, every price > 0 and max_replicas >= 1; `meets`
// monotone in every count. Ties in price go to the fleet found first (kinds
// alone in their order, then mixes in lexicographic order of counts).
FleetSearchResult FindCheapestFleet(std::span<const FleetKind> kinds, const FleetTest& meets,
                                    bool mixes);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_FLEET_SEARCH_H_
