#include "sim/runner/report_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

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

}  // namespace

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
  std::string command = ShellQuote(Python());
  for (const std::string& arg : {script.string(), file, dir, qps}) {
    if (!arg.empty()) command.append(" ").append(ShellQuote(arg));
  }
  command.append(" 2>&1");
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + Python());
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pclose(pipe);
  std::filesystem::remove(script);
  if (status != 0) {
    const bool missing_package = output.find("ModuleNotFoundError") != std::string::npos ||
                                 output.find("ImportError") != std::string::npos;
    throw std::runtime_error(
        file + ": plotting failed" +
        (missing_package ? " (" + Python() +
                               " needs matplotlib and h5py: apt-get install python3-matplotlib "
                               "python3-h5py)"
                         : std::string()) +
        ":\n" + output);
  }
  out << output;
}

}  // namespace kvroute::sim
