// Shared by the scenario printer's files (scenario_printer.cc, and
// scenario_printer_cluster.cc for the cluster section). Not part of the
// printer's interface.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_INTERNAL_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_INTERNAL_H_

#include <yaml-cpp/yaml.h>

#include "sim/runner/scenario.h"

namespace kvroute::sim::printer {

// The shortest text that reads back as exactly `value`.
YAML::Node Num(double value);
YAML::Node Flow(YAML::Node node);
// A policy entry with every parameter, defaults resolved.
YAML::Node Policy(const PolicySpec& spec);
// The `cluster` section as the scenario runs.
YAML::Node Cluster(const Scenario& s);

}  // namespace kvroute::sim::printer

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_PRINTER_INTERNAL_H_
