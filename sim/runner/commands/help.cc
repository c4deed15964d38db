// `kvroute help [TOPIC]`: the commands, one command's options, the scenario
// keys, the limits or the per-request CSV columns; --markdown gives the
// generated parts of docs/CLI.md, docs/SCENARIOS.md and docs/WORKLOADS.md.
#include "analysis/request_csv.h"
#include "sim/core/did_you_mean.h"
#include "sim/core/input_file.h"
#include "sim/core/yaml_document.h"
#include "sim/core/yaml_keys.h"
#include "sim/runner/commands/command.h"
#include "sim/runner/markdown.h"
#include "sim/runner/scenario_keys.h"
#include "sim/runner/sizing.h"
#include "sim/runner/work_estimate.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

void PrintLimits(std::ostream& out, bool markdown) {
  if (markdown) {
    out << "| limit | value |\n|---|---|\n"
        << "| events one point may take | " << FormatYamlNumber(kMaxEventsPerPoint) << " |\n"
        << "| memory of the points running at once | 90% of MemAvailable in /proc/meminfo |\n"
        << "| mixed fleets one `kvroute size --mixes` may simulate (its bound) | "
        << kMaxMixedFleets << " |\n"
        << "| YAML nesting | " << kMaxYamlDepth << " levels |\n";
    for (const InputKind& kind : InputKinds()) {
      out << "| size of a " << kind.what << " | "
          << FormatBytes(static_cast<double>(kind.max_bytes)) << " |\n";
    }
    out << "\n";
    return;
  }
  out << "events one point may take: " << FormatYamlNumber(kMaxEventsPerPoint) << "\n"
      << "memory of the points running at once: 90% of MemAvailable in /proc/meminfo\n"
      << "mixed fleets one `kvroute size --mixes` may simulate (its bound): " << kMaxMixedFleets
      << "\n"
      << "YAML nesting: " << kMaxYamlDepth << " levels\n";
  for (const InputKind& kind : InputKinds()) {
    out << "size of a " << kind.what << ": " << FormatBytes(static_cast<double>(kind.max_bytes))
        << "\n";
  }
  out << "--ignore-limits lifts the first three.\n";
}

// The columns of the per-request CSV (analysis/request_csv.h).
void PrintRequestColumns(std::ostream& out, bool markdown) {
  if (markdown) out << "| column | unit | meaning |\n|---|---|---|\n";
  for (const analysis::RequestColumn& c : analysis::RequestColumns()) {
    if (markdown) {
      out << "| `" << c.name << "` | " << c.unit << " | " << MarkdownCell(c.description) << " |\n";
    } else {
      out << "  " << c.name << (*c.unit ? std::string(" (") + c.unit + ")" : "") << ": "
          << c.description << "\n";
    }
  }
}

int Help(const po::variables_map& vm, const CommandIo& io) {
  const bool markdown = vm["markdown"].as<bool>();
  const std::string topic = vm.count("topic") ? vm["topic"].as<std::string>() : "";
  if (topic.empty()) {
    if (!markdown) {
      PrintOverview(io.out);
      return 0;
    }
    for (const Command& c : Commands()) PrintCommandMarkdown(c, io.out);
    return 0;
  }
  if (topic == "scenario") {
    PrintScenarioKeys(io.out, markdown);
    return 0;
  }
  if (topic == "limits") {
    PrintLimits(io.out, markdown);
    return 0;
  }
  if (topic == "requests") {
    PrintRequestColumns(io.out, markdown);
    return 0;
  }
  if (const Command* c = FindCommand(topic)) {
    if (markdown) {
      PrintCommandMarkdown(*c, io.out);
    } else {
      PrintCommandHelp(*c, io.out);
    }
    return 0;
  }
  std::vector<std::string> topics{"scenario", "limits", "requests"};
  for (const Command& c : Commands()) topics.push_back(c.name);
  throw UsageError("no help on '" + topic + "' (valid: " + JoinNames(topics) +
                   DidYouMean(topic, topics) + ")");
}

}  // namespace

Command HelpCommandDefinition() {
  return {"help",
          "list the commands, or describe one, the scenario keys, the limits or the "
          "per-request CSV columns",
          {{"topic", "TOPIC",
            "a command, `scenario` (every key), `limits` or `requests` (CSV columns)", false}},
          [](OptionList& o) { o.Flag("markdown", "print Markdown, as in docs/"); },
          Help};
}

}  // namespace kvroute::sim
