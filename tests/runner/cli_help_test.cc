// `kvroute help` and every command's --help: exit 0, every option listed with
// its description, and the defaults from the option declarations.
#include <gtest/gtest.h>

#include "sim/runner/commands/command.h"
#include "tests/e2e/cli_harness.h"

namespace kvroute::sim {
namespace {

TEST(CliHelpTest, EveryCommandsHelpListsEveryOption) {
  for (const Command& command : Commands()) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{command.name, "--help"},
                                                 std::vector<std::string>{"help", command.name}}) {
      Outcome o = Cli(args);
      EXPECT_EQ(o.status, 0) << command.name << ": " << o.err;
      EXPECT_EQ(o.out.rfind("usage: " + UsageLine(command) + "\n", 0), 0u) << o.out;
      const auto options = CommandOptions(command);
      for (const auto& option : options.options()) {
        EXPECT_NE(o.out.find("--" + option->long_name()), std::string::npos)
            << command.name << " --" << option->long_name();
        EXPECT_NE(o.out.find(option->description()), std::string::npos) << option->description();
      }
    }
  }
}

TEST(CliHelpTest, DefaultsAreShownFromTheDeclarations) {
  Outcome o = Cli({"run", "--help"});
  EXPECT_NE(o.out.find("--jobs N"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(default: all cores)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(default: <scenario name>.h5)"), std::string::npos) << o.out;
  Outcome plan = Cli({"help", "plan"});
  EXPECT_NE(plan.out.find("(default: 0.05)"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("--ablation affinity|replication|full"), std::string::npos) << plan.out;
}

TEST(CliHelpTest, HelpListsEveryCommandAndTopic) {
  Outcome o = Cli({"help"});
  EXPECT_EQ(o.status, 0);
  for (const Command& command : Commands()) {
    EXPECT_NE(o.out.find("\n  " + command.name + " "), std::string::npos) << command.name;
  }
  EXPECT_EQ(Cli({"help", "scenario"}).status, 0);
  EXPECT_EQ(Cli({"help", "limits"}).status, 0);
  EXPECT_EQ(Cli({}).status, 2);  // no command: the overview, on stderr
}

TEST(CliHelpTest, AUsageErrorPrintsTheCommandsOwnUsageOnce) {
  Outcome o = Cli({"point", "scenarios/quickstart.yaml", "--policy", "flat_lb"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "kvroute point: --qps is required\nusage: kvroute point SCENARIO.yaml [options]\n"
            "Run 'kvroute help point' for its options.\n");
}

TEST(CliHelpTest, ScenarioKeysListEveryTableOnce) {
  Outcome o = Cli({"help", "scenario"});
  EXPECT_EQ(o.out.rfind("top level:\n", 0), 0u);
  for (const char* section :
       {"\ncluster:\n", "\nworkload.trace:\n", "\nslo[]:\n", "\nfailures.schedule[]:\n"}) {
    EXPECT_NE(o.out.find(section), std::string::npos) << section;
  }
  EXPECT_NE(o.out.find("  series_interval_s (number in [0.001, 10000000]; default 10)"),
            std::string::npos)
      << o.out;
}

}  // namespace
}  // namespace kvroute::sim
