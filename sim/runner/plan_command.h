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
#include "sim/core/choice_table.h"
#include "sim/runner/previous_plan.h"

namespace kvroute::sim {

// A rates file that cannot be read; the message names the file and line.
class RatesFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `--ablation` names (seed 003 §5.3): affinity, replication, full.
const ChoiceTable<policies::PlanAblation>& PlanAblations();

struct KeyRates {
  std::vector<std::string> keys;  // as written, in file order
  std::vector<double> rates;      // req/s
};

// CSV with a `key,rate` header line and one `key,rate` row per key; blank
// lines are skipped. Throws RatesFileError naming `source` and the line.
KeyRates ReadKeyRates(std::istream& in, const std::string& source);

// How a plan built with --previous compares with the previous table.
struct ChurnReport {
  size_t previous_keys = 0;      // keys in the previous table
  double churn = 0;              // share of keys admitted in either whose destinations changed
  double fresh_churn = 0;        // the same for a plan built from scratch from the same rates
  uint64_t new_assignments = 0;  // (key, destination) pairs the plan has and the previous lacks
  uint64_t fresh_new_assignments = 0;  // the same for the plan built from scratch
};

// churn_aware (seed 003 §3.2): the plan BuildPlan would make from `rates`,
// each admitted key keeping those of its previous destinations that stay
// within (1 + slack) × the fresh plan's highest expected load. Keys of the
// previous table missing from `rates` have no traffic and are dropped (they
// count as changed). Fills `report`.
policies::RoutingPlan BuildPlanAgainst(const KeyRates& rates, const PreviousPlan& previous,
                                       const policies::PlannerConfig& config, double slack,
                                       ChurnReport* report);

// Writes the plan: statistics, then key -> destinations. `build_seconds` is
// the wall time the build took (reported, never used in a decision); `churn`,
// when given, adds the comparison with the previous plan to the statistics.
void WritePlanCsv(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                  double build_seconds, const ChurnReport* churn = nullptr);
void WritePlanJson(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                   double build_seconds, const ChurnReport* churn = nullptr);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PLAN_COMMAND_H_
