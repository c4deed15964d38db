// `kvroute report`: a results file's tables again, read from the file, as
// text (what `run` printed), Markdown or CSV; with --plots, its plots.
#include <algorithm>
#include <cstdio>

#include "analysis/hdf5_reader.h"
#include "analysis/table.h"
#include "sim/core/input_file.h"
#include "sim/core/yaml_keys.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/report_command.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// --plot-qps must be a load the file has points at; checked before Python runs.
std::string PlotLoad(const po::variables_map& vm, const analysis::SweepResults& results) {
  if (!vm.count("plot-qps")) return "";
  const double qps = vm["plot-qps"].as<double>();
  std::vector<double> loads;
  for (const analysis::PointResult& p : results.points) loads.push_back(p.qps);
  std::sort(loads.begin(), loads.end());
  loads.erase(std::unique(loads.begin(), loads.end()), loads.end());
  if (std::find(loads.begin(), loads.end(), qps) == loads.end()) {
    std::string valid;
    for (double q : loads) valid += (valid.empty() ? "" : ", ") + FormatYamlNumber(q);
    throw UsageError("--plot-qps: the file has no points at " + FormatYamlNumber(qps) +
                     " QPS (its loads: " + valid + ")");
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", qps);
  return text;
}

int Report(const po::variables_map& vm, const CommandIo& io) {
  if (vm.count("plot-qps") && !vm.count("plots")) throw UsageError("--plot-qps needs --plots");
  const std::string path = vm["file"].as<std::string>();
  CheckInputFile(path, kResultsInput);
  const analysis::StoredResults stored = analysis::ReadResultsHdf5(path);
  const std::string plot_qps = PlotLoad(vm, stored.results);
  const std::string format = vm["format"].as<std::string>();
  if (format == "csv") {
    analysis::PrintSummaryCsv(stored.results, io.out);
  } else if (format == "md") {
    analysis::PrintSummaryMarkdown(stored.results, io.out);
  } else {
    io.out << "kvroute " << stored.attributes.kvroute_version << " results in " << path
           << " (written " << stored.attributes.created_utc << " by `"
           << stored.attributes.command_line << "`)\n";
    analysis::PrintSummaryTables(stored.results, io.out);
  }
  if (vm.count("plots")) DrawPlots(path, vm["plots"].as<std::string>(), plot_qps, io.out);
  return 0;
}

}  // namespace

Command ReportCommandDefinition() {
  return {"report",
          "print a results file's tables again and draw its plots",
          {{"file", "RESULTS.h5", "a results file written by `kvroute run`", true}},
          [](OptionList& o) {
            o.Choice("format", {"text", "md", "csv"},
                     "text (as `run` prints), md (Markdown tables) or csv (one table)", "text")
                .Text("plots", "DIR", "draw PNG plots into DIR (python3 with matplotlib, h5py)")
                .RealNumber("plot-qps", "X",
                            "the load of the time-series plots; default the reference load", 0,
                            INFINITY, true);
          },
          Report};
}

}  // namespace kvroute::sim
