// `kvroute profiles`: the built-in hardware and model profiles with their KV
// capacity and calibration tables (sim/runner/profile_report.h); --markdown
// is docs/CALIBRATION.md.
#include "sim/runner/commands/command.h"
#include "sim/runner/profile_report.h"

namespace kvroute::sim {

Command ProfilesCommandDefinition() {
  return {"profiles",
          "list the built-in profiles with their KV capacity and calibration against published "
          "measurements",
          {},
          [](OptionList& o) { o.Flag("markdown", "print Markdown, as in docs/CALIBRATION.md"); },
          [](const boost::program_options::variables_map& vm, const CommandIo& io) {
            PrintProfiles(io.out, vm["markdown"].as<bool>());
            return 0;
          }};
}

}  // namespace kvroute::sim
