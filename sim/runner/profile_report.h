// `kvroute profiles`: the built-in GPUs with their fitted efficiencies, the
// model architectures, every profile with its KV pool and engine defaults,
// and the published microbenchmarks beside the model, as plain text or as the
// Markdown of docs/CALIBRATION.md.
#ifndef KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_
#define KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_

#include <ostream>

namespace kvroute::sim {

void PrintProfiles(std::ostream& out, bool markdown);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_
