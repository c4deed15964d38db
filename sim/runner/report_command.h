// `kvroute report FILE.h5 [--plots DIR] [--format text|md|csv]`: prints a
// results file's tables again, read from the file, and with --plots draws its
// PNG plots with analysis/plot_report.py (run by python3 with matplotlib and
// h5py; $KVROUTE_PYTHON names another interpreter).
#ifndef KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
#define KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_

#include <ostream>

namespace kvroute::sim {

int Report(int argc, const char* const* argv, std::ostream& out);

// The text of analysis/plot_report.py.
const char* PlotScript();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
