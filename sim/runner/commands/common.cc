#include "sim/runner/commands/common.h"

#include <sys/stat.h>

#include <filesystem>

#include "sim/core/did_you_mean.h"
#include "sim/core/file_names.h"
#include "sim/runner/request_csv_files.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/work_estimate.h"

namespace kvroute::sim {

namespace po = boost::program_options;
namespace fs = std::filesystem;

Argument ScenarioArgument(bool required) {
  return {
      "scenario", "SCENARIO.yaml",
      required ? "the scenario file" : "the scenario file; without one, the built-in quickstart",
      required};
}

void AddOverrideOption(OptionList& options) {
  options.Repeated("set", "KEY=VALUE",
                   "override a scenario key; the value is YAML (--set sweep.qps=[10,20])");
}

void AddLimitOption(OptionList& options) {
  options.Flag("ignore-limits",
               "run even when the work estimate exceeds the limits (`kvroute help limits`)");
}

Scenario LoadScenarioArgument(const po::variables_map& vm) {
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  if (!vm.count("scenario")) {
    return LoadScenarioText(QuickstartYaml(), "built-in quickstart", overrides);
  }
  return LoadScenarioFile(vm["scenario"].as<std::string>(), overrides);
}

std::vector<std::string> ScenarioInputs(const Scenario& s) {
  std::vector<std::string> inputs;
  if (s.source != "built-in quickstart") inputs.push_back(s.source);
  if (s.profile.ends_with(".yaml")) inputs.push_back(s.profile);
  if (!s.workload.trace.file.empty()) inputs.push_back(s.workload.trace.file);
  if (!s.workload.arrivals.source.empty()) inputs.push_back(s.workload.arrivals.source);
  return inputs;
}

void CheckOutputPath(const std::string& flag, const std::string& path,
                     const std::vector<std::string>& inputs) {
  const std::string name = fs::path(path).filename().string();
  if (path.empty()) throw UsageError(flag + ": the file name is empty");
  if (name.empty() || name == "." || name == "..") {
    throw UsageError(flag + " '" + path + "': names a directory, not a file");
  }
  // A name the user typed with a leading '.' is taken as meant; an unprintable one is not.
  std::string visible = name;
  visible[0] = visible[0] == '.' ? 'x' : visible[0];
  const std::string problem = FileNameProblem(visible);
  if (!problem.empty()) {
    throw UsageError(flag + " '" + EscapeForMessage(path) + "': the file name " + problem);
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw UsageError(flag + " '" + path + "': is a directory");
    if (!S_ISREG(info.st_mode)) {
      throw UsageError(flag + " '" + path + "': is not a regular file (a device or a FIFO)");
    }
  }
  const fs::path parent = fs::absolute(path).parent_path();
  if (!fs::is_directory(parent)) {
    throw UsageError(flag + " '" + path + "': the directory " + parent.string() +
                     " does not exist");
  }
  for (const std::string& input : inputs) {
    std::error_code ec;
    const bool same = fs::exists(path) ? fs::equivalent(path, input, ec)
                                       : fs::absolute(path).lexically_normal() ==
                                             fs::absolute(input).lexically_normal();
    if (same && !ec) {
      throw UsageError(flag + " '" + path + "': is an input of this command (" + input +
                       "); writing it would destroy it");
    }
  }
}

std::unique_ptr<analysis::RequestCsvWriter> OpenRequestCsv(const std::string& flag,
                                                           const std::string& path,
                                                           const Scenario& scenario) {
  try {
    return std::make_unique<analysis::RequestCsvWriter>(path, RequestCsvContextFor(scenario));
  } catch (const std::runtime_error& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

void CommitRequestCsv(const std::string& flag, analysis::RequestCsvWriter* writer) {
  try {
    writer->Commit();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(flag + ": " + e.what());
  }
}

std::string CheckRequestsDir(const std::string& dir) {
  if (dir.empty()) throw UsageError("--requests: the directory name is empty");
  if (!fs::is_directory(dir)) {
    throw UsageError("--requests '" + EscapeForMessage(dir) +
                     "': not an existing directory (create it first)");
  }
  return dir;
}

size_t PolicyIndex(const Scenario& s, const std::string& label, const std::string& flag) {
  std::vector<std::string> labels;
  for (size_t i = 0; i < s.policies.size(); ++i) {
    if (s.policies[i].label == label) return i;
    labels.push_back(s.policies[i].label);
  }
  throw UsageError(flag + ": '" + label + "' is not a policy of scenario '" + s.name +
                   "' (valid: " + JoinNames(labels) + DidYouMean(label, labels) + ")");
}

void CheckScenarioWork(const Scenario& s, const po::variables_map& vm, unsigned parallel_points,
                       std::optional<double> qps) {
  if (vm.count("ignore-limits") && vm["ignore-limits"].as<bool>()) return;
  CheckWorkLimits(s, EstimatePointWork(s, qps), parallel_points);
}

}  // namespace kvroute::sim
