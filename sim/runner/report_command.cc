#include "sim/runner/report_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "analysis/hdf5_reader.h"
#include "analysis/table.h"
#include "sim/runner/cli_options.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// Single-quoted for /bin/sh.
std::string ShellQuote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string Python() {
  if (const char* python = std::getenv("KVROUTE_PYTHON")) return python;
  // Debian's matplotlib and h5py belong to the system interpreter, which a
  // pyenv or virtualenv python3 earlier on PATH would not see.
  if (std::filesystem::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

// Runs the plot script on `file`, writing into `dir`; its output (the paths
// it wrote) goes to `out`. `qps` (empty: the reference load) is the load of
// the time-series plots.
void DrawPlots(const std::string& file, const std::string& dir, const std::string& qps,
               std::ostream& out) {
  std::filesystem::create_directories(dir);
  std::filesystem::path script = std::filesystem::path(dir) / ".plot_report.py";
  {
    std::FILE* f = std::fopen(script.c_str(), "w");
    if (!f) throw std::runtime_error(dir + ": cannot write");
    std::fputs(PlotScript(), f);
    std::fclose(f);
  }
  std::string command = ShellQuote(Python()) + " " + ShellQuote(script.string()) + " " +
                        ShellQuote(file) + " " + ShellQuote(dir) +
                        (qps.empty() ? "" : " " + ShellQuote(qps)) + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + Python());
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pclose(pipe);
  std::filesystem::remove(script);
  if (status != 0) {
    throw std::runtime_error(
        file + ": plotting failed (" + Python() +
        " needs matplotlib and h5py: apt-get install python3-matplotlib python3-h5py):\n" + output);
  }
  out << output;
}

}  // namespace

int Report(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("report");
  options.add_options()("file", po::value<std::string>())("plots", po::value<std::string>())(
      "format", po::value<std::string>()->default_value("text"))("plot-qps", po::value<double>());
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (!vm.count("file")) throw UsageError("report: a results file is required");
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "md" && format != "csv") {
    throw UsageError("--format must be text, md or csv");
  }
  const std::string path = vm["file"].as<std::string>();
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": no such file");
  analysis::StoredResults stored = analysis::ReadResultsHdf5(path);
  if (format == "csv") {
    analysis::PrintSummaryCsv(stored.results, out);
  } else if (format == "md") {
    analysis::PrintSummaryMarkdown(stored.results, out);
  } else {
    out << "kvroute " << stored.attributes.kvroute_version << " results in " << path << " (written "
        << stored.attributes.created_utc << " by `" << stored.attributes.command_line << "`)\n";
    analysis::PrintSummaryTables(stored.results, out);
  }
  if (vm.count("plot-qps") && !vm.count("plots")) throw UsageError("--plot-qps needs --plots");
  std::string plot_qps;
  if (vm.count("plot-qps")) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", vm["plot-qps"].as<double>());
    plot_qps = buffer;
  }
  if (vm.count("plots")) DrawPlots(path, vm["plots"].as<std::string>(), plot_qps, out);
  return 0;
}

}  // namespace kvroute::sim
