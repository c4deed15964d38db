#include "sim/runner/report_command.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "analysis/output_schema.h"
#include "analysis/published_values.h"
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

// A private directory for the script and its inputs, removed on every path out.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kvroute-report-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  std::string Write(const std::string& name, const std::string& text) const {
    std::filesystem::path file = path_ / name;
    std::ofstream out(file);
    out << text;
    if (!out.flush()) throw std::runtime_error(file.string() + ": cannot write");
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

std::string Formatted(double qps) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", qps);
  return buffer;
}

}  // namespace

void DrawPlots(const std::string& file, const PlotOptions& o, std::ostream& out) {
  std::filesystem::create_directories(o.dir);
  ScratchDirectory scratch;
  std::string command = ShellQuote(Python()) + " " +
                        ShellQuote(scratch.Write("plot_report.py", PlotScript())) + " " +
                        ShellQuote(file) + " " + ShellQuote(o.dir) + " --format " + o.format +
                        " --dpi " + std::to_string(o.dpi);
  if (!o.qps.empty()) command += " --qps " + o.qps;
  if (!o.published_json.empty()) {
    command += " --published " + ShellQuote(scratch.Write("published.json", o.published_json));
  }
  command += " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + Python());
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pclose(pipe);
  if (status != 0) {
    const bool missing = output.find("No module named") != std::string::npos;
    throw std::runtime_error(
        file + ": plotting failed" +
        (missing ? " (" + Python() +
                       " needs matplotlib, h5py and numpy: apt-get install python3-matplotlib "
                       "python3-h5py)"
                 : "") +
        ":\n" + output);
  }
  out << output;
}

void PrintStoredResults(const std::string& path, const analysis::StoredResults& stored,
                        const std::string& format, std::ostream& out) {
  if (format == "csv") {
    analysis::PrintSummaryCsv(stored.results, out);
  } else if (format == "md") {
    analysis::PrintSummaryMarkdown(stored.results, out);
  } else {
    const analysis::Provenance& p = stored.provenance;
    out << "kvroute " << p.kvroute_version << " (" << p.git_revision << ") results in " << path
        << " (written " << p.created_utc << " by `" << p.command_line << "` in "
        << p.working_directory << ")\n";
    analysis::PrintSummaryTables(stored.results, out);
  }
}

int Report(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("report");
  options.add_options()("file", po::value<std::string>())("plots", po::value<std::string>())(
      "format", po::value<std::string>()->default_value("text"))("plot-qps", po::value<double>())(
      "plot-format", po::value<std::string>())("dpi", po::value<unsigned>())(
      "published", po::value<std::string>())("schema", po::bool_switch());
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (vm["schema"].as<bool>()) {
    if (vm.count("file") || vm.count("plots")) throw UsageError("--schema takes no file");
    analysis::PrintOutputSchemaMarkdown(out);
    return 0;
  }
  if (!vm.count("file")) throw UsageError("a results file is required");
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "md" && format != "csv") {
    throw UsageError("--format must be text, md or csv");
  }
  for (const char* option : {"plot-qps", "plot-format", "dpi", "published"}) {
    if (vm.count(option) && !vm.count("plots")) {
      throw UsageError("--" + std::string(option) + " needs --plots");
    }
  }
  PlotOptions plot;
  plot.format = vm.count("plot-format") ? vm["plot-format"].as<std::string>() : "png";
  if (plot.format != "png" && plot.format != "pdf" && plot.format != "svg") {
    throw UsageError("--plot-format must be png, pdf or svg");
  }
  if (vm.count("dpi")) {
    plot.dpi = vm["dpi"].as<unsigned>();
    if (plot.dpi < 50 || plot.dpi > 1200) throw UsageError("--dpi must be in [50, 1200]");
  }
  const std::string path = vm["file"].as<std::string>();
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": no such file");
  if (std::filesystem::is_directory(path)) throw std::runtime_error(path + ": is a directory");
  analysis::StoredResults stored = analysis::ReadResultsHdf5(path);
  const analysis::SweepResults& results = stored.results;
  if (vm.count("plot-qps")) {
    const double qps = vm["plot-qps"].as<double>();
    std::set<double> loads;
    for (const analysis::PointResult& p : results.points) loads.insert(p.qps);
    if (!loads.count(qps)) {
      std::string list;
      for (double q : loads) list += (list.empty() ? "" : ", ") + Formatted(q);
      throw UsageError("--plot-qps: " + path + " has no point at " + Formatted(qps) +
                       " QPS (loads: " + list + ")");
    }
    plot.qps = Formatted(qps);
  }
  if (vm.count("published")) {
    plot.published_json = analysis::PublishedValuesJson(
        analysis::ReadPublishedValues(vm["published"].as<std::string>(), results));
  }
  PrintStoredResults(path, stored, format, out);
  if (vm.count("plots")) {
    plot.dir = vm["plots"].as<std::string>();
    DrawPlots(path, plot, out);
  }
  return 0;
}

}  // namespace kvroute::sim
