#include "sim/runner/cli.h"

#include <iostream>
#include <string>
#include <vector>

#include "analysis/build_info.h"
#include "sim/core/did_you_mean.h"
#include "sim/runner/commands/command.h"
#include "sim/runner/experiment_output.h"
#include "sim/runner/mpi_world.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& c : Commands()) names.push_back(c.name);
  return names;
}

std::vector<std::string> OptionNames(const po::options_description& options) {
  std::vector<std::string> names;
  for (const auto& o : options.options()) names.push_back("--" + o->long_name());
  return names;
}

// Boost's message for an option error, with a did-you-mean for unknown ones.
[[noreturn]] void ThrowOptionError(const po::error& e, const po::options_description& visible) {
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e)) {
    const std::string name = unknown->get_option_name();
    const std::vector<std::string> names = OptionNames(visible);
    throw UsageError("unknown option '" + name + "'" + DidYouMean(name, names));
  }
  if (const auto* missing = dynamic_cast<const po::required_option*>(&e)) {
    throw UsageError(missing->get_option_name() + " is required");
  }
  if (dynamic_cast<const po::too_many_positional_options_error*>(&e)) {
    throw UsageError("too many arguments");
  }
  throw UsageError(e.what());
}

po::variables_map ParseCommandLine(const Command& command, const std::vector<std::string>& args) {
  po::options_description visible = CommandOptions(command);
  po::options_description all;
  all.add(visible);
  po::positional_options_description positional;
  for (const Argument& a : command.arguments) {
    all.add_options()(a.name.c_str(), po::value<std::string>(), a.description.c_str());
    positional.add(a.name.c_str(), 1);
  }
  po::variables_map vm;
  try {
    // No guessing: an abbreviated option is unknown, not silently widened.
    const int style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    ThrowOptionError(e, visible);
  }
  for (const Argument& a : command.arguments) {
    if (a.required && !vm.count(a.name)) throw UsageError(a.metavar + " is required");
  }
  return vm;
}

int Dispatch(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
             bool err_is_terminal) {
  if (argc < 2) {
    PrintOverview(err);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h") {
    PrintOverview(out);
    return 0;
  }
  if (name == "--version") {
    out << "kvroute " << analysis::KvrouteVersion() << "\n";
    return 0;
  }
  const Command* command = FindCommand(name);
  if (!command) {
    const std::vector<std::string> names = CommandNames();
    err << "kvroute: unknown command '" << name << "' (valid: " << JoinNames(names)
        << DidYouMean(name, names) << ")\nRun 'kvroute help' for what each does.\n";
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      PrintCommandHelp(*command, out);
      return 0;
    }
  }
  try {
    const po::variables_map vm = ParseCommandLine(*command, args);
    const CommandIo io{out, err, err_is_terminal, ShellCommandLine(argc, argv)};
    return command->run(vm, io);
  } catch (const UsageError& e) {
    err << "kvroute " << command->name << ": " << e.what() << "\nusage: " << UsageLine(*command)
        << "\nRun 'kvroute help " << command->name << "' for its options.\n";
    return 2;
  } catch (const std::exception& e) {
    err << "kvroute: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
           bool err_is_terminal) {
  const int status = Dispatch(argc, argv, out, err, err_is_terminal);
  // Under MPI the other ranks may be waiting for this one: end them all.
  if (status != 0 && CurrentWorld().size > 1) AbortWorld(status);
  return status;
}

}  // namespace kvroute::sim
