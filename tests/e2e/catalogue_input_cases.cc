// Malformed input files: traces (both formats), profiles, measured gaps,
// rates, previous plans, results files. Each error names the file and line
// (and field or column), or says what kind of file it is not.
#include "tests/e2e/catalogue.h"

namespace kvroute::testing {
namespace {

const char kMooncakeLine[] =
    R"({"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [0, 1]})";
const char kAzureHeader[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const char kAzureLine[] = "2023-11-16 18:15:46.6805900,374,44\n";

std::string Mooncake(const std::string& second_line) {
  return std::string(kMooncakeLine) + "\n" + second_line + "\n";
}

// A profile file: the 8B profile with its memory and weights as given.
// A profile file of seven lines: `model` on an H100 at TP1.
std::string Profile(const std::string& model, const std::string& extra = "") {
  return R"(name: tiny-gpu
description: a model on one GPU
model: )" +
         model + R"(
gpu: h100-sxm
tensor_parallel: 1
weight_dtype: bf16
kv_dtype: bf16
)" + extra;
}

MalformedInput WithProfile(std::string name, std::string profile,
                           std::vector<std::string> expected) {
  return {std::move(name),
          {"validate", "s.yaml"},
          {{"s.yaml", Scenario("h100-llama3.1-8b-bf16", "p.yaml")}, {"p.yaml", std::move(profile)}},
          1,
          std::move(expected)};
}

MalformedInput Plan(std::string name, std::vector<std::pair<std::string, std::string>> files,
                    std::vector<std::string> more, std::vector<std::string> expected) {
  std::vector<std::string> args{"plan",    "rates.csv", "--replicas",          "2",
                                "--q-cap", "5",         "--slots-per-replica", "4"};
  args.insert(args.end(), more.begin(), more.end());
  if (files.empty() || files[0].first != "rates.csv")
    files.insert(files.begin(), {"rates.csv", "key,rate\na,1\nb,2\n"});
  return {std::move(name), std::move(args), std::move(files), 1, std::move(expected)};
}

}  // namespace

std::vector<MalformedInput> InputFileCases() {
  return {
      // Mooncake JSONL.
      TraceCase(
          "MooncakeFieldTwice", "t.jsonl",
          Mooncake(
              R"({"timestamp": 1, "timestamp": 2, "input_length": 9, "output_length": 1, "hash_ids": []})"),
          {"t.jsonl:2: field 'timestamp': given twice"}),
      TraceCase(
          "MooncakeHashIdsTwice", "t.jsonl",
          Mooncake(
              R"({"timestamp": 1, "input_length": 9, "output_length": 1, "hash_ids": [], "hash_ids": []})"),
          {"t.jsonl:2: field 'hash_ids': given twice"}),
      TraceCase(
          "MooncakeEmptyPrompt", "t.jsonl",
          Mooncake(R"({"timestamp": 1, "input_length": 0, "output_length": 1, "hash_ids": []})"),
          {"t.jsonl:2: field 'input_length': expected a whole number in [1, "}),
      TraceCase(
          "MooncakeEmptyOutput", "t.jsonl",
          Mooncake(R"({"timestamp": 1, "input_length": 5, "output_length": 0, "hash_ids": []})"),
          {"t.jsonl:2: field 'output_length': expected a whole number in [1, "}),
      TraceCase(
          "MooncakeTimestampBeyondTheClock", "t.jsonl",
          Mooncake(
              R"({"timestamp": 1e300, "input_length": 5, "output_length": 1, "hash_ids": []})"),
          {"t.jsonl:2: field 'timestamp': beyond the latest time kvroute's clock holds"}),
      TraceCase(
          "MooncakeTimestampOutOfRange", "t.jsonl",
          Mooncake(
              R"({"timestamp": 1e400, "input_length": 5, "output_length": 1, "hash_ids": []})"),
          {"t.jsonl:2: field 'timestamp'"}),
      TraceCase("MooncakeTimestampBackwards", "t.jsonl",
                R"({"timestamp": 10, "input_length": 5, "output_length": 1, "hash_ids": []})"
                "\n" +
                    Mooncake(""),
                {"t.jsonl:2: field 'timestamp': earlier than the previous request's"}),
      TraceCase(
          "MooncakeTimestampNegative", "t.jsonl",
          Mooncake(R"({"timestamp": -1, "input_length": 5, "output_length": 1, "hash_ids": []})"),
          {"t.jsonl:2: field 'timestamp': must be non-negative"}),
      TraceCase("MooncakeUnknownField", "t.jsonl",
                Mooncake(R"({"timestamp": 1, "input": 5, "output_length": 1, "hash_ids": []})"),
                {"t.jsonl:2: field 'input': unknown field (valid: timestamp, delay, input_length"}),
      TraceCase(
          "MooncakeDelayOpenLoop", "t.jsonl",
          Mooncake(
              R"({"delay": 5, "input_length": 5, "output_length": 1, "hash_ids": [], "session_id": 1})"),
          {"t.jsonl:2: field 'delay': a turn sent after its previous turn's response has no "
           "time of its own"}),
      TraceCase("MooncakeMissingField", "t.jsonl",
                Mooncake(R"({"timestamp": 1, "input_length": 5, "output_length": 1})"),
                {"t.jsonl:2: field 'hash_ids': required field is missing"}),
      TraceCase(
          "MooncakeTooManyBlocks", "t.jsonl",
          Mooncake(
              R"({"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [1, 2]})"),
          {"t.jsonl:2: field 'hash_ids': more 512-token blocks than input_length covers"}),
      TraceCase("MooncakeTrailingText", "t.jsonl", Mooncake(std::string(kMooncakeLine) + " x"),
                {"t.jsonl:2: unexpected text after the object"}),
      TraceCase("MooncakeNotJson", "t.jsonl", Mooncake("timestamp=1"), {"t.jsonl:2: expected '{'"}),
      // Azure CSV.
      TraceCase("AzureThirtyFirstOfFebruary", "t.csv",
                std::string(kAzureHeader) + kAzureLine + "2023-02-31 00:00:00.0,10,10\n",
                {"t.csv:3: field 'TIMESTAMP': day 31 does not exist in month 2 of 2023"}),
      TraceCase("AzureTwentyNinthOfFebruaryInACommonYear", "t.csv",
                std::string(kAzureHeader) + "2023-02-29 00:00:00.0,10,10\n",
                {"t.csv:2: field 'TIMESTAMP': day 29 does not exist in month 2 of 2023"}),
      TraceCase("AzureMonthThirteen", "t.csv",
                std::string(kAzureHeader) + "2023-13-01 00:00:00,1,1\n",
                {"t.csv:2: field 'TIMESTAMP': month 13 does not exist"}),
      TraceCase("AzureYearBeyondTheClock", "t.csv",
                std::string(kAzureHeader) + kAzureLine + "2300-01-01 00:00:00,1,1\n",
                {"t.csv:3: field 'TIMESTAMP': year 2300 is outside what kvroute's clock"}),
      TraceCase("AzureLeapSecond", "t.csv", std::string(kAzureHeader) + "2023-06-30 23:59:60,1,1\n",
                {"t.csv:2: field 'TIMESTAMP': the time of day is out of range"}),
      TraceCase("AzureEmptyPrompt", "t.csv",
                std::string(kAzureHeader) + "2023-11-16 18:15:46,0,44\n",
                {"t.csv:2: field 'ContextTokens': must be at least 1 token"}),
      TraceCase("AzureEmptyOutput", "t.csv",
                std::string(kAzureHeader) + "2023-11-16 18:15:46,4,0\n",
                {"t.csv:2: field 'GeneratedTokens': must be at least 1 token"}),
      TraceCase("AzureNegativeTokens", "t.csv",
                std::string(kAzureHeader) + "2023-11-16 18:15:46,4,-5\n",
                {"t.csv:2: field 'GeneratedTokens': expected a whole number"}),
      TraceCase(
          "AzureDuplicateColumn", "t.csv",
          "TIMESTAMP,ContextTokens,GeneratedTokens,GeneratedTokens\n" + std::string(kAzureLine),
          {"t.csv:1: expected the header TIMESTAMP,ContextTokens,GeneratedTokens"}),
      TraceCase("AzureFourFields", "t.csv",
                std::string(kAzureHeader) + "2023-11-16 18:15:46,4,5,6\n",
                {"t.csv:2: expected three comma-separated fields"}),
      TraceCase("AzureBackwards", "t.csv",
                std::string(kAzureHeader) + kAzureLine + "2023-11-16 18:15:40,4,5\n",
                {"t.csv:3: field 'TIMESTAMP': earlier than the previous request's"}),
      TraceCase("AzureNoRequests", "t.csv", kAzureHeader, {"t.csv: no requests in the trace"}),
      {"TraceIsADirectory",
       {"trace-stats", "d.jsonl"},
       {{"d.jsonl/x", ""}},
       1,
       {"d.jsonl: is a directory, not a trace file"}},
      {"TraceIsADevice",
       {"trace-stats", "/dev/zero", "--format", "azure"},
       {},
       1,
       {"/dev/zero: is a character device, not a trace file"}},
      {"TraceMissing", {"trace-stats", "none.csv"}, {}, 1, {"none.csv: no such trace file"}},
      // A scenario's trace is found relative to the scenario file.
      {"ScenarioTraceRelativeToItsFile",
       {"validate", "sub/s.yaml"},
       {{"sub/s.yaml",
         Scenario("  keys: 20\n  prompt: {system_tokens: 64, new_tokens: 16}\n  output_tokens: 8",
                  "  trace: {format: azure, file: t.csv}")},
        {"sub/t.csv", std::string(kAzureHeader) + "2023-02-30 00:00:00,1,1\n"}},
       1,
       {"sub/s.yaml:10: key 'workload.trace.file': ", "sub/t.csv:2: field 'TIMESTAMP': day 30"}},
      {"BootstrapGapsBadLine",
       {"validate", "s.yaml"},
       {{"s.yaml", Scenario("  keys: 20",
                            "  keys: 20\n  arrivals: {kind: bootstrap, file: g.txt, block: 2}")},
        {"g.txt", "1\n2\nthree\n"}},
       1,
       {"s.yaml:11: key 'workload.arrivals.file': ", "g.txt:3: expected one non-negative gap"}},
      {"BootstrapGapsIsADevice",
       {"validate", "s.yaml"},
       {{"s.yaml",
         Scenario("  keys: 20", "  keys: 20\n  arrivals: {kind: bootstrap, file: /dev/zero}")}},
       1,
       {"key 'workload.arrivals.file': /dev/zero: is a character device, not a gaps file"}},
      // Profiles.
      WithProfile("ProfileWithoutKvRoom", Profile("llama-3.1-70b"),
                  {"s.yaml:7: key 'cluster.profile': profile 'tiny-gpu' leaves no room for the KV "
                   "cache",
                   "weights 131.4 GiB"}),
      WithProfile("ProfileDuplicateKey", Profile("llama-3.1-8b", "name: again\n"),
                  {"key 'cluster.profile'",
                   "p.yaml:8: key 'name': duplicate key (first given on "
                   "line 1)"}),
      WithProfile(
          "ProfileMisspelledKey", Profile("llama-3.1-8b", "tensor_paralel: 2\n"),
          {"p.yaml:8: key 'tensor_paralel': unknown key", "did you mean 'tensor_parallel'?"}),
      WithProfile("ProfileDeepNesting", std::string(200, '[') + std::string(200, ']'),
                  {"p.yaml:1: nested more than 64 levels deep"}),
      {"ProfileIsADirectory",
       {"validate", "s.yaml"},
       {{"s.yaml", Scenario("h100-llama3.1-8b-bf16", "dir.yaml")}, {"dir.yaml/x", ""}},
       1,
       {"key 'cluster.profile'", "dir.yaml: is a directory, not a profile file"}},
      // Rates and previous plans.
      Plan("RatesBadHeader", {{"rates.csv", "name,qps\na,1\n"}}, {},
           {"rates.csv:1: expected the header 'key,rate'"}),
      Plan("RatesKeyTwice", {{"rates.csv", "key,rate\na,1\na,2\n"}}, {}, {"rates.csv:3:"}),
      Plan("RatesNegative", {{"rates.csv", "key,rate\na,-1\n"}}, {}, {"rates.csv:2:"}),
      {"RatesIsADevice",
       {"plan", "/dev/zero", "--replicas", "2", "--q-cap", "5", "--slots-per-replica", "4"},
       {},
       1,
       {"/dev/zero: is a character device, not a rates file"}},
      Plan("PreviousDestinationTooHigh", {{"p.csv", "key,rate,destinations\na,1,0 7\n"}},
           {"--previous", "p.csv"}, {"p.csv:2:", "destination 7 is not below --replicas 2"}),
      Plan("PreviousDestinationRepeated", {{"p.csv", "key,rate,destinations\na,1,0 0\n"}},
           {"--previous", "p.csv"}, {"p.csv:2:", "destination 0 repeated"}),
      Plan("PreviousJsonKeyTwice", {{"p.json", "{\"table\": {\"a\": [0], \"a\": [1]}}"}},
           {"--previous", "p.json"}, {"p.json:1: key 'table.a': duplicate key"}),
      Plan("PreviousJsonDeep", {{"p.json", std::string(500, '[') + std::string(500, ']')}},
           {"--previous", "p.json"}, {"p.json:1: nested more than 64 levels deep"}),
      Plan("PreviousJsonInvalid", {{"p.json", "{\"table\": {\"a\": [0}"}}, {"--previous", "p.json"},
           {"p.json:1:", "invalid YAML"}),
      Plan("PreviousIsADevice", {}, {"--previous", "/dev/zero"},
           {"/dev/zero: is a character device, not a plan file"}),
      // Results files.
      {"ReportNotHdf5", {"report", "r.h5"}, {{"r.h5", "not a results file\n"}}, 1, {"r.h5"}},
      {"ReportDirectory", {"report", "."}, {}, 1, {".: is a directory, not a results file"}},
  };
}

}  // namespace kvroute::testing
