// `kvroute validation`: replays ../shared/measured and prints predicted
// against measured (validation.h).
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_COMMAND_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_COMMAND_H_

#include <ostream>

namespace kvroute::sim {

int ValidationCommand(int argc, const char* const* argv, std::ostream& out);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_VALIDATION_COMMAND_H_
