// A kvroute command: its name, a one-line summary, its positional arguments
// and options (each with a description and default), and its handler. Each
// command lives in its own file in this folder; commands/registry.cc lists
// them. `kvroute help` prints all of it from here.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_COMMAND_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_COMMAND_H_

#include <boost/program_options.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/runner/cli_options.h"

namespace kvroute::sim {

// What a handler writes to and knows about how it was called.
struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  bool err_is_terminal = false;  // progress bars only on a terminal
  std::string command_line;      // as typed, for provenance
};

struct Argument {
  std::string name;     // the key in the variables_map
  std::string metavar;  // "SCENARIO.yaml"
  std::string description;
  bool required = true;
};

struct Command {
  std::string name;
  std::string summary;  // one line, for `kvroute help`
  std::vector<Argument> arguments;
  std::function<void(OptionList&)> options;
  // Returns the exit status; throws UsageError for a bad command line and
  // other exceptions for failures (exit 1).
  std::function<int(const boost::program_options::variables_map&, const CommandIo&)> run;
};

// Every command, in the order `kvroute help` lists them.
const std::vector<Command>& Commands();
// nullptr when there is no such command.
const Command* FindCommand(const std::string& name);

// Every command with its summary, for `kvroute help`.
void PrintOverview(std::ostream& out);
// "kvroute run [SCENARIO.yaml] [options]"
std::string UsageLine(const Command& command);
// The command's help: usage, summary, arguments, options with defaults.
void PrintCommandHelp(const Command& command, std::ostream& out);
// The same as Markdown, for docs/CLI.md.
void PrintCommandMarkdown(const Command& command, std::ostream& out);
// Its options, as Boost holds them (the help and the parser share them).
boost::program_options::options_description CommandOptions(const Command& command);

// The commands' definitions, one per file.
Command RunCommandDefinition();
Command PointCommandDefinition();
Command ValidateCommandDefinition();
Command PoliciesCommandDefinition();
Command ProfilesCommandDefinition();
Command ReportCommandDefinition();
Command PlanCommandDefinition();
Command SizeCommandDefinition();
Command CalibrateCommandDefinition();
Command WorkloadStatsCommandDefinition();
Command TraceStatsCommandDefinition();
Command ValidationCommandDefinition();
Command HelpCommandDefinition();

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_COMMAND_H_
