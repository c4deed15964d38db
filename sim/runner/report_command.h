// The pieces of `kvroute report` (commands/report.cc parses its options):
// the tables of a results file printed again, and its plots drawn by
// analysis/plot_report.py (compiled into the binary) with python3, matplotlib
// and h5py; $KVROUTE_PYTHON names another interpreter.
#ifndef KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
#define KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_

#include <ostream>
#include <string>

#include "analysis/hdf5_reader.h"

namespace kvroute::sim {

struct PlotOptions {
  std::string dir;             // where the plots go
  std::string qps;             // the time-series plots' load ("%.17g"); empty: the reference load
  std::string format = "png";  // png, pdf or svg
  unsigned dpi = 150;          // 50 to 1200
  std::string published_json;  // analysis::PublishedValuesJson; empty: no published values
};

// Runs the plot script on the results file `file`; the paths it wrote (each
// written under a temporary name and renamed) go to `out`. Throws
// std::runtime_error when plotting fails, blaming missing Python packages
// only when an import failed.
void DrawPlots(const std::string& file, const PlotOptions& options, std::ostream& out);

// The file's tables as `format` (text, md or csv); text opens with the
// provenance line.
void PrintStoredResults(const std::string& path, const analysis::StoredResults& stored,
                        const std::string& format, std::ostream& out);

// The text of analysis/plot_report.py.
const char* PlotScript();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
