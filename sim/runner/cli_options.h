// Command-line parsing shared by the kvroute commands.
#ifndef KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_
#define KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_

#include <boost/program_options.hpp>
#include <stdexcept>

namespace kvroute::sim {

// A bad command line: the CLI prints it with the usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UsageError for an unknown option or a bad value.
boost::program_options::variables_map Parse(
    int argc, const char* const* argv, const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_
