// Malformed command lines: every one exits 2 naming the flag, with the
// command's own usage.
#include "tests/e2e/catalogue.h"

namespace kvroute::testing {
namespace {

MalformedInput Flag(std::string name, std::vector<std::string> args,
                    std::vector<std::string> expected) {
  MalformedInput c{
      std::move(name), std::move(args), {{"s.yaml", Scenario()}}, 2, std::move(expected)};
  c.expected.push_back("usage: kvroute " + c.args[0]);
  return c;
}

}  // namespace

std::vector<MalformedInput> CliCases() {
  const std::vector<std::string> plan{"plan",    "rates.csv", "--replicas",          "2",
                                      "--q-cap", "5",         "--slots-per-replica", "4"};
  auto plan_with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = plan;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  std::vector<MalformedInput> cases{
      Flag("JobsNegative", {"run", "s.yaml", "--jobs", "-1"},
           {"--jobs: expected a whole number in [1, 4096], got '-1'"}),
      Flag("JobsZero", {"run", "s.yaml", "--jobs", "0"}, {"--jobs: expected a whole number"}),
      Flag("JobsText", {"run", "s.yaml", "--jobs", "many"}, {"--jobs", "got 'many'"}),
      Flag("JobsFraction", {"run", "s.yaml", "--jobs", "1.5"}, {"--jobs", "got '1.5'"}),
      Flag("JobsTooMany", {"run", "s.yaml", "--jobs", "99999"}, {"--jobs", "got '99999'"}),
      Flag("SeedsNegative", {"run", "s.yaml", "--seeds", "-1"}, {"--seeds", "got '-1'"}),
      Flag("SeedsZero", {"run", "s.yaml", "--seeds", "0"}, {"--seeds", "[1, 10000]"}),
      Flag("SeedsTooMany", {"run", "s.yaml", "--seeds", "10001"}, {"--seeds"}),
      Flag("StopAfterZero", {"run", "s.yaml", "--stop-after", "0"}, {"--stop-after"}),
      Flag("SeedNegative", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "1", "--seed", "-1"},
           {"--seed: expected a whole number", "got '-1'"}),
      Flag("QpsNegative", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "-1"},
           {"--qps: expected a number > 0, got '-1'"}),
      Flag("QpsZero", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "0"}, {"--qps"}),
      Flag("QpsNan", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "nan"}, {"--qps"}),
      Flag("QpsInfinite", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "inf"}, {"--qps"}),
      Flag("QpsOverflow", {"point", "s.yaml", "--policy", "flat_lb", "--qps", "1e400"}, {"--qps"}),
      Flag("PointWithoutPolicy", {"point", "s.yaml", "--qps", "1"}, {"--policy is required"}),
      Flag("PointWithoutQps", {"point", "s.yaml", "--policy", "flat_lb"}, {"--qps is required"}),
      Flag("PointMisspelledPolicy", {"point", "s.yaml", "--policy", "flat_bl", "--qps", "1"},
           {"--policy: 'flat_bl'", "did you mean 'flat_lb'?"}),
      Flag("PlanReplicasNegative", plan_with({"--replicas", "-1"}),
           {"--replicas: expected a whole number", "got '-1'"}),
      Flag("PlanSlotsNegative", plan_with({"--slots-per-replica", "-1"}),
           {"--slots-per-replica", "got '-1'"}),
      Flag("PlanQCapZero", plan_with({"--q-cap", "0"}),
           {"--q-cap: expected a number in (0, ", "got '0'"}),
      Flag("PlanChurnSlackNegative", plan_with({"--churn-slack", "-1"}), {"--churn-slack"}),
      Flag("PlanWithoutReplicas", {"plan", "rates.csv", "--q-cap", "5", "--slots-per-replica", "4"},
           {"--replicas is required"}),
      Flag("PlanAblationMisspelled", plan_with({"--ablation", "replicaton"}),
           {"--ablation: expected one of affinity, replication, full", "did you mean"}),
      Flag("CalibrateWithoutScenario", {"calibrate"}, {"SCENARIO.yaml is required"}),
      Flag("SizeWithoutQps", {"size", "s.yaml"}, {"give either --qps", "or --budget"}),
      Flag("SizeQpsAndBudget", {"size", "s.yaml", "--qps", "10", "--budget", "20"},
           {"give either --qps", "or --budget"}),
      Flag("SizeBudgetZero", {"size", "s.yaml", "--budget", "0"},
           {"--budget: expected a number in (0, 1e9], got '0'"}),
      Flag("SizeMaxReplicasZero", {"size", "s.yaml", "--qps", "10", "--max-replicas", "0"},
           {"--max-replicas: expected a whole number"}),
      Flag("SizeMisspelledProfile",
           {"size", "s.yaml", "--qps", "10", "--profile", "h100-llama3.1-8b-bf61"},
           {"--profile 'h100-llama3.1-8b-bf61'", "did you mean"}),
      Flag("SizeEmptyProfile", {"size", "s.yaml", "--qps", "10", "--profile", ""},
           {"--profile: the value is empty"}),
      Flag("SizeMixesOneCandidate", {"size", "s.yaml", "--qps", "10", "--mixes"},
           {"--mixes needs two or more candidates"}),
      Flag("SizeMixesTwoModels",
           {"size", "s.yaml", "--qps", "10", "--mixes", "--profile", "h100-llama3.1-8b-bf16",
            "--profile", "h100-qwen3-14b-bf16"},
           {"--mixes: profile 'h100-qwen3-14b-bf16' serves model"}),
      Flag("SizeProfileTwice",
           {"size", "s.yaml", "--qps", "10", "--profile", "h100-llama3.1-8b-bf16", "--profile",
            "h100-llama3.1-8b-bf16"},
           {"--profile 'h100-llama3.1-8b-bf16': names profile", "again"}),
      Flag("SizeMisspelledPolicy", {"size", "s.yaml", "--qps", "10", "--policy", "flat_bl"},
           {"--policy", "flat_bl"}),
      Flag("CalibrateSloOutOfRange", {"calibrate", "s.yaml", "--slo", "5"},
           {"--slo: the scenario has 1 SLO(s)"}),
      Flag("UnknownOption", {"run", "s.yaml", "--qiuet"},
           {"unknown option '--qiuet'; did you mean '--quiet'?"}),
      Flag("AbbreviatedOption", {"run", "s.yaml", "--qui"}, {"unknown option '--qui'"}),
      Flag("TooManyArguments", {"validate", "s.yaml", "other.yaml"}, {"too many arguments"}),
      Flag("ReportFormatUnknown", {"report", "r.h5", "--format", "xml"},
           {"--format: expected one of text, md, csv, got 'xml'"}),
      Flag("ReportPlotQpsWithoutPlots", {"report", "r.h5", "--plot-qps", "10"},
           {"--plot-qps needs --plots"}),
      Flag("ReportPlotQpsNegative", {"report", "r.h5", "--plots", "p", "--plot-qps", "-3"},
           {"--plot-qps: expected a number > 0"}),
      Flag("TraceStatsBlockSizeZero", {"trace-stats", "t.jsonl", "--block-size", "0"},
           {"--block-size"}),
      Flag("TraceStatsFormatMisspelled", {"trace-stats", "t.jsonl", "--format", "moon"},
           {"--format", "did you mean 'mooncake'?"}),
      Flag("TraceStatsUnknownExtension", {"trace-stats", "s.yaml"},
           {"cannot tell the format of 's.yaml'"}),
      Flag("WindowsNegative", {"workload-stats", "s.yaml", "--windows", "10,-5"},
           {"--windows: expected a number in (0, ", "got '-5'"}),
      Flag("LruBlocksFraction", {"workload-stats", "s.yaml", "--lru-blocks", "1.5"},
           {"--lru-blocks"}),
      Flag("PoliciesUnknown", {"run", "s.yaml", "--policies", "nope"},
           {"--policies: 'nope' is not a policy of scenario 'tiny' (valid: flat_lb, cacheroute"}),
      Flag("PoliciesTwice", {"run", "s.yaml", "--policies", "flat_lb,flat_lb"},
           {"--policies: 'flat_lb' is named twice"}),
      Flag("OutEmpty", {"run", "s.yaml", "--out", ""}, {"--out: the file name is empty"}),
      Flag("OutDirectory", {"run", "s.yaml", "--out", "."}, {"--out '.'"}),
      Flag("OutIsTheScenario", {"run", "s.yaml", "--out", "s.yaml"},
           {"--out 's.yaml': is an input of this command"}),
      Flag("OutControlCharacter", {"run", "s.yaml", "--out", "a\x01.h5"},
           {"--out 'a\\x01.h5': the file name contains a control character"}),
      Flag("OutNotUtf8", {"run", "s.yaml", "--out", "r\xff.h5"},
           {"the file name is not valid UTF-8"}),
      Flag("OutInMissingDirectory", {"run", "s.yaml", "--out", "no/such/dir/r.h5"},
           {"does not exist"}),
      Flag("HelpUnknownTopic", {"help", "scenarios"},
           {"no help on 'scenarios'", "did you mean 'scenario'?"}),
  };
  MalformedInput unknown{
      "UnknownCommand", {"rnu"}, {}, 2, {"unknown command 'rnu'", "did you mean 'run'?"}};
  cases.push_back(unknown);
  MalformedInput plan_out{"PlanOutIsTheRates",
                          plan_with({"--out", "rates.csv"}),
                          {{"rates.csv", "key,rate\na,1\n"}},
                          2,
                          {"--out 'rates.csv': is an input of this command"}};
  cases.push_back(plan_out);
  return cases;
}

}  // namespace kvroute::testing
