// `kvroute calibrate`: what CacheRoute needs from a deployment, measured on
// one replica of the scenario's profile: q_cap and a warm-slot budget W
// (seed 003 §3.1, §5.7; sim/runner/calibrate.h).
#include "sim/runner/calibrate.h"

#include "sim/runner/commands/common.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

int CalibrateCommand(const po::variables_map& vm, const CommandIo& io) {
  const Scenario s = LoadScenarioArgument(vm);
  const size_t slo = vm["slo"].as<uint64_t>();
  if (slo >= s.slos.size()) {
    throw UsageError("--slo: the scenario has " + std::to_string(s.slos.size()) +
                     " SLO(s), numbered from 0; got " + std::to_string(slo));
  }
  CheckScenarioWork(s, vm, 1);
  const CalibrationReport r = Calibrate(s, slo);
  io.out << "calibration of '" << s.name << "' (" << s.source << ") on one replica of " << s.profile
         << ", SLO " << s.slos[slo].Label() << ", " << r.seeds.size() << " seed(s) from " << s.seed
         << ", " << r.probes << " points\n";
  for (const std::string& line : r.derivation) io.out << "  " << line << "\n";
  io.out << "q_cap: " << r.q_cap << "\nslots_per_replica (W): " << r.slots_per_replica << "\n"
         << "as a policy entry: {name: cacheroute, q_cap: " << r.q_cap
         << ", slots_per_replica: " << r.slots_per_replica << "}\n";
  return 0;
}

}  // namespace

Command CalibrateCommandDefinition() {
  return {"calibrate",
          "measure CacheRoute's q_cap and suggest its warm-slot budget W for a scenario",
          {ScenarioArgument(true)},
          [](OptionList& o) {
            o.WholeNumber("slo", "I", "which of the scenario's SLOs, from 0", 0, 999, 0);
            AddOverrideOption(o);
            AddLimitOption(o);
          },
          CalibrateCommand};
}

}  // namespace kvroute::sim
