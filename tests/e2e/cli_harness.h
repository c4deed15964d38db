// Runs the kvroute command line in-process for end-to-end tests, capturing
// its exit status, stdout and stderr.
#ifndef KVROUTE_TESTS_E2E_CLI_HARNESS_H_
#define KVROUTE_TESTS_E2E_CLI_HARNESS_H_

#include <sstream>
#include <string>
#include <vector>

#include "sim/runner/cli.h"

namespace kvroute::sim {

struct Outcome {
  int status;
  std::string out, err;
};

// `args` are what follows the program name, e.g. {"run", "--quiet"}.
inline Outcome Cli(std::vector<std::string> args) {
  args.insert(args.begin(), "kvroute");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = RunCli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

}  // namespace kvroute::sim

#endif  // KVROUTE_TESTS_E2E_CLI_HARNESS_H_
