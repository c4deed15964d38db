// When and how CacheRoute replaces its plan (seed 003 §3.2, §5.4). A fresh
// LPT plan from slightly drifted rates moves most key→destination
// assignments (94.5% in §5.4, while only 1.1% of keys change k_b), and every
// moved assignment is cold until its first request there. Two remedies:
//   hold        keep the old plan until its measured staleness exceeds the
//               re-warm penalty of installing the fresh one (§3.2);
//   churn_aware start from the old assignment and move a share only when
//               keeping it would push its destination above the LPT bound.
#ifndef KVROUTE_POLICIES_CACHEROUTE_REPLAN_H_
#define KVROUTE_POLICIES_CACHEROUTE_REPLAN_H_

#include <cstdint>
#include <span>
#include <vector>

#include "policies/cacheroute_planner.h"

namespace kvroute::policies {

// What a plan does with a rate vector it may not have been built from: the
// req/s of admitted keys (served warm) and the highest expected destination
// load, each admitted key's rate split evenly over its members and the rest
// spread evenly by the power-of-two fallback.
struct PlanOutlook {
  double warm_rate = 0;
  double max_load = 0;
};
PlanOutlook Evaluate(const RoutingPlan& plan, std::span<const double> rates);

// (key, destination) pairs of `after` that `before` does not have.
uint64_t NewAssignments(const RoutingPlan& before, const RoutingPlan& after);

// The hold rule, both sides counted in requests over the next interval of
// `interval_s` at the newly measured `rates`:
//   staleness = interval_s · [(warm_fresh − warm_held)            cold instead of warm
//                             + max(0, max_held − max_fresh)]    above the fresh bound
//   re-warm   = misses_per_move · NewAssignments(held, fresh)    first request of each
//                                                                moved pair misses
// True when staleness exceeds the re-warm penalty.
bool FreshPlanPaysOff(const RoutingPlan& held, const RoutingPlan& fresh,
                      std::span<const double> rates, double interval_s, double misses_per_move);

// churn_aware: admission and k_b as BuildPlan computes them from `rates`;
// then in decreasing rate each admitted key keeps, in order, those of its
// previous destinations whose load stays within B = (1 + slack) × the fresh
// LPT plan's highest expected load, and its remaining shares go to the
// least-loaded destinations it does not yet use (LPT's rule). Kept shares
// never exceed B; with the ablations (hashed placement) the fresh plan is
// already stable and is returned.
RoutingPlan BuildPlanFrom(const RoutingPlan& previous, std::span<const double> rates,
                          const PlannerConfig& config, double slack);

// A plan as a rolled-out table gives it: key b's destinations are
// members[b] (empty: not admitted). It carries no rates, so its expected loads
// are 0; it serves as BuildPlanFrom's `previous`. REQUIRES: every destination
// < destinations, none repeated within a key.
RoutingPlan PlanFromTable(std::span<const std::vector<uint32_t>> members, uint32_t destinations);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_CACHEROUTE_REPLAN_H_
