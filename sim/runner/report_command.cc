#include "sim/runner/report_command.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "analysis/table.h"

namespace kvroute::sim {
namespace {

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
    const bool missing = output.find("ModuleNotFoundError") != std::string::npos ||
                         output.find("ImportError") != std::string::npos;
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

}  // namespace kvroute::sim
