// `kvroute validate`: loads a scenario with every check a run makes (keys,
// files, the work estimate against the limits) and says what it would run,
// or prints it resolved, every default filled in.
#include "sim/runner/commands/common.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/scenario_printer.h"
#include "sim/runner/work_estimate.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

int Validate(const po::variables_map& vm, const CommandIo& io) {
  const Scenario s = LoadScenarioArgument(vm);
  CheckScenarioWork(s, vm, 1);
  if (vm["print"].as<bool>()) {
    io.out << ResolvedScenarioYaml(s);
    return 0;
  }
  // "8 replicas of P (N KV blocks": one part per deployment when they differ.
  std::string fleet;
  const bool each = s.MixedProfiles() || s.disaggregation.enabled;
  for (size_t d = 0; d < (each ? s.deployments.size() : 1); ++d) {
    if (d > 0) fleet += "; ";
    if (each) fleet += s.deployments[d].name + ": ";
    fleet += std::to_string(each ? s.deployments[d].replicas : s.replica_count()) +
             " replicas of " + (each ? s.ProfileOf(d).name : s.profile) + " (" +
             std::to_string(s.KvBlocksOf(d)) + " KV blocks";
    if (d + 1 < (each ? s.deployments.size() : 1)) fleet += ")";
  }
  io.out << s.source << ": ok — scenario '" << s.name << "': " << fleet << " of "
         << s.resolved_profile.ResolvedEngine().block_size_tokens << " tokens each"
         << (s.scheduler.kv_tier.enabled()
                 ? ", and " + std::to_string(s.scheduler.kv_tier.capacity_blocks) +
                       " more in host memory"
                 : "")
         << (s.scheduler.ssd_tier.enabled()
                 ? " and " + std::to_string(s.scheduler.ssd_tier.capacity_blocks) + " on local SSD"
                 : "")
         << "), "
         << (s.workload.trace.format == models::TraceConfig::Format::kNone
                 ? std::to_string(s.workload.keys) + " keys"
                 : "trace " + s.workload.trace.file)
         << "; " << s.policies.size() << " policies x " << s.qps.size() << " loads x " << s.seeds
         << " seeds = " << s.policies.size() * s.qps.size() * s.seeds << " points\n"
         << FleetCostLine(s) << "\n"
         << "costliest point: " << EstimatePointWork(s).Summary() << "\n";
  return 0;
}

}  // namespace

Command ValidateCommandDefinition() {
  return {"validate",
          "check a scenario as a run would, and say what it would run",
          {ScenarioArgument(true)},
          [](OptionList& o) {
            AddOverrideOption(o);
            o.Flag("print",
                   "print the scenario resolved (every default filled in, paths absolute) as "
                   "YAML that loads back to the same scenario");
            AddLimitOption(o);
          },
          Validate};
}

}  // namespace kvroute::sim
