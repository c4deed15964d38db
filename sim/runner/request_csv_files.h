// Where per-request CSV files go (analysis/request_csv.h): the context a
// scenario gives their rows, and the file of each point of `kvroute run
// --requests DIR`.
#ifndef KVROUTE_SIM_RUNNER_REQUEST_CSV_FILES_H_
#define KVROUTE_SIM_RUNNER_REQUEST_CSV_FILES_H_

#include <string>

#include "analysis/request_csv.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

// The scenario's warm-up and the deployment of each replica.
analysis::RequestCsvContext RequestCsvContextFor(const Scenario& scenario);

// DIR/POLICY_qpsX_seedS.csv, the label with anything but letters, digits,
// '.', '-' and '_' replaced by '_'.
std::string RequestCsvPath(const std::string& dir, const Scenario& scenario, const PointSpec& spec);

// Runs the point, writing its requests to RequestCsvPath when the scenario
// has a requests_dir, else just runs it.
analysis::PointResult RunPointWithRequestFile(const Scenario& scenario, const PointSpec& spec);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REQUEST_CSV_FILES_H_
