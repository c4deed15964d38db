// The kvroute command line (DESIGN.md, "CLI"): run, point, validate, policies.
#ifndef KVROUTE_SIM_RUNNER_CLI_H_
#define KVROUTE_SIM_RUNNER_CLI_H_

#include <iosfwd>

namespace kvroute::sim {

inline constexpr char kVersion[] = "0.1.0";

// Runs one command; returns the process exit status. Errors go to `err`.
int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLI_H_
