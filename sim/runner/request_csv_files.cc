#include "sim/runner/request_csv_files.h"

#include <cctype>
#include <cstdio>

namespace kvroute::sim {

analysis::RequestCsvContext RequestCsvContextFor(const Scenario& scenario) {
  analysis::RequestCsvContext context;
  context.warmup = FromSeconds(scenario.warmup_s);
  for (const DeploymentSpec& d : scenario.deployments) {
    context.replica_deployment.insert(context.replica_deployment.end(), d.replicas, d.name);
  }
  return context;
}

std::string RequestCsvPath(const std::string& dir, const Scenario& scenario,
                           const PointSpec& spec) {
  std::string label = scenario.policies.at(spec.policy_index).label;
  for (char& c : label) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (!safe) c = '_';
  }
  char rest[96];
  std::snprintf(rest, sizeof rest, "_qps%g_seed%llu.csv", spec.qps,
                static_cast<unsigned long long>(spec.seed));
  return dir + "/" + label + rest;
}

analysis::PointResult RunPointWithRequestFile(const Scenario& scenario, const PointSpec& spec) {
  if (scenario.requests_dir.empty()) return RunPoint(scenario, spec);
  analysis::RequestCsvWriter writer(RequestCsvPath(scenario.requests_dir, scenario, spec),
                                    RequestCsvContextFor(scenario));
  analysis::PointResult result = RunPoint(scenario, spec, &writer);
  writer.Commit();
  return result;
}

}  // namespace kvroute::sim
