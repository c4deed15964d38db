// The plain bisection that models/key_rates.cc's Gini fit is defined as, kept
// as the oracle of tests/models/gini_fit_test.cc: the fit there replays these
// steps but evaluates only the midpoints whose side of the root is not already
// known, and must return these shares to the bit. Not used by the simulator.
#ifndef KVROUTE_TESTS_ORACLE_GINI_FIT_BISECTION_H_
#define KVROUTE_TESTS_ORACLE_GINI_FIT_BISECTION_H_

#include <cstdint>
#include <vector>

namespace kvroute::oracle {

// Lognormal shares over `keys` keys capped at `max_share`, sigma bisected over
// [0, 12] to a bracket of 1e-9 so that their Gini is `gini`; the shares at the
// bracket's upper end. Throws std::invalid_argument where sigma 12 falls short.
std::vector<double> GiniFitByBisection(uint32_t keys, double gini, double max_share);

}  // namespace kvroute::oracle

#endif  // KVROUTE_TESTS_ORACLE_GINI_FIT_BISECTION_H_
