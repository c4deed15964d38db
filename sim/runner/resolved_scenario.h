// A scenario as it ran, every default filled in, as YAML the scenario loader
// reads back to the same Scenario: the provenance a results file keeps
// (/provenance/resolved_scenario_yaml), so that a later kvroute with other
// defaults can still tell, and rerun, what ran. Values the loader derives
// (the KV pool from the profile) are written out with a comment saying so.
#ifndef KVROUTE_SIM_RUNNER_RESOLVED_SCENARIO_H_
#define KVROUTE_SIM_RUNNER_RESOLVED_SCENARIO_H_

#include <string>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

std::string ResolvedScenarioYaml(const Scenario& scenario);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_RESOLVED_SCENARIO_H_
