#include "sim/runner/commands/run_subset.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

#include "sim/runner/cli_options.h"
#include "sim/runner/commands/common.h"

namespace kvroute::sim {
namespace {

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// The scenario text stored in the output, with --seeds and --policies applied
// (chosen empty: all policies).
std::string ScenarioAsRun(const std::string& yaml, std::optional<uint32_t> seeds,
                          const std::vector<size_t>& chosen) {
  if (!seeds && chosen.empty()) return yaml;
  YAML::Node root = YAML::Load(yaml);
  if (seeds) root["seeds"] = *seeds;
  if (!chosen.empty()) {
    YAML::Node all = YAML::Clone(root["policies"]);
    YAML::Node subset(YAML::NodeType::Sequence);
    for (size_t index : chosen) subset.push_back(all[index]);
    root["policies"] = subset;
  }
  YAML::Emitter emitter;
  emitter << root;
  return emitter.c_str();
}

}  // namespace

void NarrowScenario(std::optional<uint32_t> seeds, std::optional<std::string> policies,
                    Scenario* scenario) {
  if (seeds) scenario->seeds = *seeds;
  std::vector<size_t> chosen;  // indices into the scenario's policies
  if (policies) {
    for (const std::string& name : SplitCommas(*policies)) {
      const size_t index = PolicyIndex(*scenario, name, "--policies");
      if (std::find(chosen.begin(), chosen.end(), index) != chosen.end()) {
        throw UsageError("--policies: '" + name + "' is named twice");
      }
      chosen.push_back(index);
    }
    if (chosen.empty()) throw UsageError("--policies: no policy named");
    std::vector<PolicySpec> subset;
    for (size_t index : chosen) subset.push_back(scenario->policies[index]);
    scenario->policies = subset;
    // A baseline left out of the run has no capacities to compare with.
    if (std::none_of(subset.begin(), subset.end(),
                     [&](const PolicySpec& p) { return p.label == scenario->baseline; })) {
      scenario->baseline.clear();
    }
  }
  scenario->yaml = ScenarioAsRun(scenario->yaml, seeds, chosen);
}

}  // namespace kvroute::sim
