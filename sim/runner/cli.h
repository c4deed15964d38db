// The kvroute command line (DESIGN.md, "CLI"): finds the command in the
// registry (commands/command.h), parses its options, runs it, and turns
// errors into messages and exit statuses: 0 success, 1 a failure (bad input
// file, failed run), 2 a bad command line (the command's usage is printed).
#ifndef KVROUTE_SIM_RUNNER_CLI_H_
#define KVROUTE_SIM_RUNNER_CLI_H_

#include <iosfwd>

namespace kvroute::sim {

// Runs one command; returns the process exit status. Errors go to `err`.
// `err_is_terminal`: progress is drawn as a bar.
int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
           bool err_is_terminal = false);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLI_H_
