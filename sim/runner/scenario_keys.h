// The scenario reference printed from the loader's own key tables (type,
// range, default and meaning of every key): `kvroute help scenario`, and with
// --markdown the tables of docs/SCENARIOS.md.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_KEYS_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_KEYS_H_

#include <ostream>

namespace kvroute::sim {

void PrintScenarioKeys(std::ostream& out, bool markdown);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_KEYS_H_
