// `kvroute profiles`: every built-in profile with its KV capacity and its
// calibration table (published value, kvroute's value, error), as plain text
// or as the Markdown of docs/CALIBRATION.md.
#ifndef KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_
#define KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_

#include <ostream>

namespace kvroute::sim {

void PrintProfiles(std::ostream& out, bool markdown);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PROFILE_REPORT_H_
