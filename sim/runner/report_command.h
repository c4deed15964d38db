// The plots of a results file, drawn by analysis/plot_report.py (compiled
// into the binary) with python3, matplotlib and h5py; $KVROUTE_PYTHON names
// another interpreter. `kvroute report` (commands/report.cc) calls it.
#ifndef KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
#define KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_

#include <ostream>
#include <string>

namespace kvroute::sim {

// Runs the plot script on `file`, writing into `dir`; its output (the paths
// it wrote) goes to `out`. `qps` (empty: the reference load) is the load of
// the time-series plots. Throws std::runtime_error when plotting fails,
// blaming missing Python packages only when an import failed.
void DrawPlots(const std::string& file, const std::string& dir, const std::string& qps,
               std::ostream& out);

// The text of analysis/plot_report.py.
const char* PlotScript();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
