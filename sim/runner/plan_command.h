// `kvroute plan`: builds a CacheRoute routing table (seed 003 §3.1) from
// measured per-key rates and writes it with its statistics, as CSV or JSON —
// the artefact an operator rolls out.
#ifndef KVROUTE_SIM_RUNNER_PLAN_COMMAND_H_
#define KVROUTE_SIM_RUNNER_PLAN_COMMAND_H_

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "policies/cacheroute_planner.h"

namespace kvroute::sim {

// A rates file that cannot be read; the message names the file and line.
class RatesFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KeyRates {
  std::vector<std::string> keys;  // as written, in file order
  std::vector<double> rates;      // req/s
};

// CSV with a `key,rate` header line and one `key,rate` row per key; blank
// lines are skipped. Throws RatesFileError naming `source` and the line.
KeyRates ReadKeyRates(std::istream& in, const std::string& source);

// Writes the plan: statistics, then key -> destinations. `build_seconds` is
// the wall time the build took (reported, never used in a decision).
void WritePlanCsv(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                  double build_seconds);
void WritePlanJson(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                   double build_seconds);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PLAN_COMMAND_H_
