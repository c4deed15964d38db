// The scenario as it will run, every default filled in and every path
// absolute, as YAML that loads back to the same scenario: what `kvroute
// validate --print` shows and what a results file can store for provenance.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_H_

#include <string>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

// REQUIRES: `scenario` came from the scenario loader.
std::string ResolvedScenarioYaml(const Scenario& scenario);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_H_
