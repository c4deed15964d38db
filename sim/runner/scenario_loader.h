// Reads scenario YAML into a Scenario. Every key is checked: a misspelled,
// unknown or duplicated key, a wrong type or an out-of-range value is a
// ScenarioError whose message names the file, the line and the key
// (DESIGN.md, "Scenario YAML"). Paths in a scenario file are relative to the
// file's directory.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_LOADER_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_LOADER_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `overrides` are "path.to.key=value" strings (--set); the value is parsed as
// YAML, so lists and maps work too ("sweep.qps=[10,20]"). A relative path
// given with --set is relative to the working directory.
Scenario LoadScenarioFile(const std::string& path, const std::vector<std::string>& overrides = {});
// `base_dir` resolves the relative paths in `text`; empty: the working directory.
Scenario LoadScenarioText(const std::string& text, const std::string& source,
                          const std::vector<std::string>& overrides = {},
                          const std::string& base_dir = "");

// The built-in quickstart (scenarios/quickstart.yaml, compiled in).
const std::string& QuickstartYaml();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_LOADER_H_
