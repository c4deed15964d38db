// Pieces several commands share: reading the scenario argument with its
// --set overrides, checking a path the command will write, finding a policy
// of the scenario by label, the work limits.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_COMMON_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_COMMON_H_

#include <boost/program_options.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/request_csv.h"
#include "sim/runner/cli_options.h"
#include "sim/runner/commands/command.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

// The scenario argument every scenario command takes.
Argument ScenarioArgument(bool required);
// --set KEY=VALUE, repeatable.
void AddOverrideOption(OptionList& options);
// --ignore-limits.
void AddLimitOption(OptionList& options);

// The scenario named by the `scenario` argument with --set applied; without
// one, the built-in quickstart.
Scenario LoadScenarioArgument(const boost::program_options::variables_map& vm);

// The files a scenario reads: itself, a profile file, a trace, measured gaps.
std::vector<std::string> ScenarioInputs(const Scenario& scenario);

// Checks a path the command is about to write (`flag` names it in errors):
// a visible, printable file name in an existing directory, not a directory or
// a device, and not one of `inputs`. Throws UsageError.
void CheckOutputPath(const std::string& flag, const std::string& path,
                     const std::vector<std::string>& inputs);

// A per-request CSV writer for `path` (analysis/request_csv.h) with the
// scenario's warm-up and deployments; errors name `flag`.
std::unique_ptr<analysis::RequestCsvWriter> OpenRequestCsv(const std::string& flag,
                                                           const std::string& path,
                                                           const Scenario& scenario);
void CommitRequestCsv(const std::string& flag, analysis::RequestCsvWriter* writer);
// `dir` if it is an existing directory; UsageError naming --requests otherwise.
std::string CheckRequestsDir(const std::string& dir);

// The index of the scenario's policy labelled `label`; UsageError naming
// `flag` and the valid labels otherwise.
size_t PolicyIndex(const Scenario& scenario, const std::string& label, const std::string& flag);

// Refuses work beyond the limits (sim/runner/work_estimate.h) unless
// --ignore-limits was given; `parallel_points` points may run at once.
void CheckScenarioWork(const Scenario& scenario, const boost::program_options::variables_map& vm,
                       unsigned parallel_points, std::optional<double> qps = {});

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_COMMON_H_
