// `kvroute report`: a results file's tables again, read from the file, as
// text (what `run` printed), Markdown or CSV; with --plots, its plots; with
// --schema, the reference of what a results file holds (docs/OUTPUT.md).
#include <algorithm>
#include <cstdio>

#include "analysis/hdf5_reader.h"
#include "analysis/output_schema.h"
#include "analysis/published_values.h"
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
  if (vm["schema"].as<bool>()) {
    if (vm.count("file") || vm.count("plots")) throw UsageError("--schema takes no results file");
    analysis::PrintOutputSchemaMarkdown(io.out);
    return 0;
  }
  if (!vm.count("file")) throw UsageError("a results file is required (or --schema)");
  for (const char* option : {"plot-qps", "plot-format", "dpi", "published"}) {
    if (Given(vm, option) && !vm.count("plots")) {
      throw UsageError("--" + std::string(option) + " needs --plots");
    }
  }
  const std::string path = vm["file"].as<std::string>();
  CheckInputFile(path, kResultsInput);
  const analysis::StoredResults stored = analysis::ReadResultsHdf5(path);
  PlotOptions plot;
  plot.qps = PlotLoad(vm, stored.results);
  plot.format = vm["plot-format"].as<std::string>();
  plot.dpi = static_cast<unsigned>(vm["dpi"].as<uint64_t>());
  if (vm.count("published")) {
    plot.published_json = analysis::PublishedValuesJson(
        analysis::ReadPublishedValues(vm["published"].as<std::string>(), stored.results));
  }
  PrintStoredResults(path, stored, vm["format"].as<std::string>(), io.out);
  if (vm.count("plots")) {
    plot.dir = vm["plots"].as<std::string>();
    DrawPlots(path, plot, io.out);
  }
  return 0;
}

}  // namespace

Command ReportCommandDefinition() {
  return {"report",
          "print a results file's tables again and draw its plots",
          {{"file", "RESULTS.h5", "a results file written by `kvroute run`", false}},
          [](OptionList& o) {
            o.Choice("format", {"text", "md", "csv"},
                     "text (as `run` prints), md (Markdown tables) or csv (one table)", "text")
                .Text("plots", "DIR", "draw plots into DIR (python3 with matplotlib, h5py)")
                .RealNumber("plot-qps", "X",
                            "the load of the time-series plots; default the reference load", 0,
                            INFINITY, true)
                .Choice("plot-format", {"png", "pdf", "svg"}, "the plots' file format", "png")
                .WholeNumber("dpi", "N", "the plots' resolution in dots per inch", 50, 1200, 150)
                .Text("published", "FILE",
                      "published values (CSV or YAML, docs/OUTPUT.md) drawn beside the capacities")
                .Flag("schema", "print what a results file holds, as Markdown, and exit");
          },
          Report};
}

}  // namespace kvroute::sim
