// `kvroute report FILE.h5 [--format text|md|csv] [--plots DIR [--plot-qps X]
// [--plot-format png|pdf|svg] [--dpi N] [--published FILE]]`: prints a results
// file's tables again, read from the file (which must pass every check of
// analysis/hdf5_reader.h), and with --plots draws its plots with
// analysis/plot_report.py (run by python3 with matplotlib and h5py;
// $KVROUTE_PYTHON names another interpreter). `kvroute report --schema` prints
// the layout of results files (docs/OUTPUT.md's reference section).
#ifndef KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
#define KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_

#include <ostream>

namespace kvroute::sim {

int Report(int argc, const char* const* argv, std::ostream& out);

// The text of analysis/plot_report.py.
const char* PlotScript();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
