// The list of commands and the help printed from their definitions.
#include <algorithm>
#include <iomanip>

#include "sim/runner/commands/command.h"
#include "sim/runner/markdown.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

struct OptionText {
  std::string flag;  // "--jobs N"
  std::string description;
  std::string fallback;  // "" when the option has no default
};

// Boost formats a parameter as "NAME (=default)"; the default is split off so
// that help and docs print it in a column of its own.
std::vector<OptionText> OptionTexts(const Command& command) {
  std::vector<OptionText> texts;
  const po::options_description options = CommandOptions(command);
  for (const auto& option : options.options()) {
    OptionText t;
    t.flag = "--" + option->long_name();
    std::string parameter = option->format_parameter();
    const size_t open = parameter.find(" (=");
    if (open != std::string::npos && parameter.back() == ')') {
      t.fallback = parameter.substr(open + 3, parameter.size() - open - 4);
      parameter.resize(open);
    }
    if (!parameter.empty()) t.flag += " " + parameter;
    if (option->semantic()->max_tokens() == 0) t.fallback = "off";
    if (option->semantic()->is_composing()) t.fallback = "none; repeatable";
    if (option->semantic()->is_required()) t.fallback = "required";
    if (option->long_name() == "help") t.fallback = "";
    t.description = option->description();
    texts.push_back(t);
  }
  return texts;
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands{
      RunCommandDefinition(),        PointCommandDefinition(),
      ValidateCommandDefinition(),   ReportCommandDefinition(),
      PoliciesCommandDefinition(),   ProfilesCommandDefinition(),
      CalibrateCommandDefinition(),  PlanCommandDefinition(),
      SizeCommandDefinition(),       WorkloadStatsCommandDefinition(),
      TraceStatsCommandDefinition(), ValidationCommandDefinition(),
      HelpCommandDefinition()};
  return commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

po::options_description CommandOptions(const Command& command) {
  po::options_description options;
  OptionList list(&options);
  if (command.options) command.options(list);
  options.add_options()("help,h", "print this help and exit");
  return options;
}

void PrintOverview(std::ostream& out) {
  out << "usage: kvroute COMMAND [arguments] [options]\n\n"
         "kvroute simulates LLM serving clusters to compare prefix-cache-aware routing "
         "policies.\n\ncommands:\n";
  for (const Command& c : Commands()) {
    out << "  " << c.name << std::string(c.name.size() < 16 ? 16 - c.name.size() : 1, ' ')
        << c.summary << "\n";
  }
  out << "\n`kvroute help COMMAND` or `kvroute COMMAND --help` lists a command's options; "
         "`kvroute help scenario` lists every scenario key.\n";
}

std::string UsageLine(const Command& command) {
  std::string line = "kvroute " + command.name;
  for (const Argument& a : command.arguments) {
    line += a.required ? " " + a.metavar : " [" + a.metavar + "]";
  }
  return line + " [options]";
}

void PrintCommandHelp(const Command& command, std::ostream& out) {
  out << "usage: " << UsageLine(command) << "\n\n" << command.summary << "\n";
  std::vector<OptionText> texts = OptionTexts(command);
  size_t width = 0;
  for (const Argument& a : command.arguments) width = std::max(width, a.metavar.size());
  for (const OptionText& t : texts) width = std::max(width, t.flag.size());
  width = std::min<size_t>(width, 30) + 2;
  if (!command.arguments.empty()) {
    out << "\narguments:\n";
    for (const Argument& a : command.arguments) {
      out << "  " << std::left << std::setw(static_cast<int>(width)) << a.metavar << a.description
          << (a.required ? "" : " (optional)") << "\n";
    }
  }
  out << "\noptions:\n";
  for (const OptionText& t : texts) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << t.flag;
    if (t.flag.size() >= width) out << "\n  " << std::string(width, ' ');
    out << t.description;
    if (t.fallback == "required") {
      out << " (required)";
    } else if (!t.fallback.empty()) {
      out << " (default: " << t.fallback << ")";
    }
    out << "\n";
  }
}

void PrintCommandMarkdown(const Command& command, std::ostream& out) {
  out << "### `kvroute " << command.name << "`\n\n"
      << command.summary << "\n\n"
      << "```\n"
      << UsageLine(command) << "\n```\n\n"
      << "| argument or option | meaning | default |\n|---|---|---|\n";
  for (const Argument& a : command.arguments) {
    out << "| `" << a.metavar << "` | " << MarkdownCell(a.description) << " | "
        << (a.required ? "required" : "optional") << " |\n";
  }
  for (const OptionText& t : OptionTexts(command)) {
    std::string flag = t.flag;
    // A '|' inside a table cell would split it.
    for (size_t at = flag.find('|'); at != std::string::npos; at = flag.find('|', at + 2)) {
      flag.replace(at, 1, "\\|");
    }
    out << "| `" << flag << "` | " << MarkdownCell(t.description) << " | "
        << MarkdownCell(t.fallback) << " |\n";
  }
  out << "\n";
}

}  // namespace kvroute::sim
