#include "sim/runner/cli_options.h"

namespace kvroute::sim {

namespace po = boost::program_options;

po::variables_map Parse(int argc, const char* const* argv, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(options).positional(positional).run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

}  // namespace kvroute::sim
