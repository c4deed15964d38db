#include "sim/runner/experiment_output.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "analysis/atomic_file.h"
#include "analysis/build_info.h"
#include "sim/runner/scenario_printer.h"

namespace kvroute::sim {
namespace {

// Characters a POSIX shell takes literally in a word.
bool Plain(const std::string& word) {
  if (word.empty()) return false;
  for (char c : word) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("_-+=/.,:@%").find(c) != std::string_view::npos;
    if (!safe) return false;
  }
  return true;
}

std::string Quote(const std::string& word) {
  if (Plain(word)) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string WorkingDirectory() {
  std::error_code error;
  std::filesystem::path cwd = std::filesystem::current_path(error);
  return error ? "" : cwd.string();
}

}  // namespace

std::string ShellCommandLine(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) line += ' ';
    line += Quote(argv[i]);
  }
  return line;
}

std::vector<std::string> SplitCommandLine(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("unterminated quote: " + line);
      word += line.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

analysis::PointExpectations ExpectationsFor(const Scenario& scenario) {
  analysis::PointExpectations e;
  e.slos = scenario.slos.size();
  e.replicas = scenario.replica_count();
  for (const PolicySpec& p : scenario.policies) e.policies.push_back(p.label);
  e.deployments = scenario.deployments.size();
  e.duration_s = scenario.duration_s;
  e.drain_s = scenario.drain_s;
  e.series_interval_s = scenario.series_interval_s;
  return e;
}

analysis::Provenance ProvenanceFor(const Scenario& scenario, const std::string& command_line,
                                   const std::string& scenario_hash) {
  return analysis::Provenance{.kvroute_version = analysis::KvrouteVersion(),
                              .git_revision = analysis::GitRevision(),
                              .command_line = command_line,
                              .working_directory = WorkingDirectory(),
                              .created_utc = UtcNow(),
                              .scenario_hash = scenario_hash,
                              .scenario_yaml = scenario.yaml,
                              .resolved_scenario_yaml = ResolvedScenarioYaml(scenario)};
}

void WriteSweepOutput(const std::string& out_path, const analysis::Provenance& provenance,
                      const analysis::SweepResults& results, const std::string& partial_path) {
  try {
    analysis::WriteResultsHdf5(out_path, provenance, results);
  } catch (const analysis::OutputFileError& e) {
    throw std::runtime_error(std::string(e.what()) + "; the " +
                             std::to_string(results.points.size()) + " points are kept in " +
                             partial_path + ": fix the cause and run again with --resume");
  }
}

}  // namespace kvroute::sim
