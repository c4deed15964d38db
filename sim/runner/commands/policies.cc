// `kvroute policies`: every registered policy with its parameters, defaults
// and bounds, and the reasons and score it gives per request, from the
// registry (policies/registry.h); --markdown is the table of docs/POLICIES.md.
#include "policies/registry.h"
#include "sim/core/did_you_mean.h"
#include "sim/core/yaml_keys.h"
#include "sim/runner/commands/command.h"
#include "sim/runner/markdown.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

std::string DefaultText(const policies::ParamSpec& p) {
  return p.choices.empty() ? FormatYamlNumber(p.default_value)
                           : p.choices[static_cast<size_t>(p.default_value)];
}

std::string Kind(const policies::ParamSpec& p) {
  if (!p.choices.empty()) return "one of " + JoinNames(p.choices);
  return std::string(p.integer ? "whole number" : "number") + " >= " + FormatYamlNumber(p.min);
}

// What a policy's route_score holds, as the request CSV's column reads it.
std::string ScoreText(const policies::PolicyInfo& info) {
  return info.route_score.empty() ? "none (left empty)" : info.route_score;
}

int Policies(const po::variables_map& vm, const CommandIo& io) {
  const bool markdown = vm["markdown"].as<bool>();
  for (const policies::PolicyInfo& info : policies::PolicyTable()) {
    const std::string events =
        info.kv_event_view.empty()
            ? ""
            : "reads the replicas' caches through cluster.kv_events " + info.kv_event_view;
    if (!markdown) {
      io.out << info.name << " — " << info.description << "\n";
      if (!events.empty()) io.out << "    " << events << "\n";
      for (const policies::ParamSpec& p : info.params) {
        io.out << "    " << p.name << " = " << DefaultText(p);
        if (!p.choices.empty()) io.out << " (one of " << JoinNames(p.choices) << ")";
        io.out << "  (" << p.description << ")\n";
      }
      io.out << "    route_reason:";
      for (const policies::RouteReasonSpec& r : info.route_reasons) {
        io.out << " " << r.reason << " (" << r.meaning << ")"
               << (&r == &info.route_reasons.back() ? "" : ",");
      }
      io.out << "\n    route_score: " << ScoreText(info) << "\n";
      continue;
    }
    io.out << "### `" << info.name << "`\n\n" << MarkdownCell(info.description) << "\n\n";
    if (!events.empty()) io.out << "It " << events << ".\n\n";
    if (info.params.empty()) {
      io.out << "No parameters.\n\n";
    } else {
      io.out << "| parameter | default | values | meaning |\n|---|---|---|---|\n";
      for (const policies::ParamSpec& p : info.params) {
        io.out << "| `" << p.name << "` | " << MarkdownCell(DefaultText(p)) << " | "
               << MarkdownCell(Kind(p)) << " | " << MarkdownCell(p.description) << " |\n";
      }
      io.out << "\n";
    }
    io.out << "| `route_reason` | meaning |\n|---|---|\n";
    for (const policies::RouteReasonSpec& r : info.route_reasons) {
      io.out << "| `" << r.reason << "` | " << MarkdownCell(r.meaning) << " |\n";
    }
    io.out << "\n`route_score`: " << MarkdownCell(ScoreText(info)) << ".\n\n";
  }
  return 0;
}

}  // namespace

Command PoliciesCommandDefinition() {
  return {"policies",
          "list every routing policy with its parameters and defaults",
          {},
          [](OptionList& o) { o.Flag("markdown", "print Markdown, as in docs/POLICIES.md"); },
          Policies};
}

}  // namespace kvroute::sim
