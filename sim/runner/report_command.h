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
#include <string>

#include "analysis/hdf5_reader.h"

namespace kvroute::sim {

int Report(int argc, const char* const* argv, std::ostream& out);

// The pieces of Report, for a command layer that parses the options itself.
struct PlotOptions {
  std::string dir;             // where the plots go
  std::string qps;             // the time-series plots' load ("%.17g"); empty: the reference load
  std::string format = "png";  // png, pdf or svg
  unsigned dpi = 150;          // 50 to 1200
  std::string published_json;  // analysis::PublishedValuesJson; empty: no published values
};
// Runs the plot script on the results file `file`; the paths it wrote (each
// written under a temporary name and renamed) go to `out`.
void DrawPlots(const std::string& file, const PlotOptions& options, std::ostream& out);
// The file's tables as `format` (text, md or csv); text opens with the
// provenance line.
void PrintStoredResults(const std::string& path, const analysis::StoredResults& stored,
                        const std::string& format, std::ostream& out);

// The text of analysis/plot_report.py.
const char* PlotScript();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REPORT_COMMAND_H_
