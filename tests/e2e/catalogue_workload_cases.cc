// Malformed workloads of docs/WORKLOADS.md: closed-loop sessions and agent
// loops, length distributions, empirical length files, and the per-request
// CSV flags. Each names the file, line and key (or field, or flag).
#include "tests/e2e/catalogue.h"

namespace kvroute::testing {
namespace {

const char kOutput[] = "  output_tokens: 8";

MalformedInput Workload(std::string name, const std::string& lines,
                        std::vector<std::string> expected) {
  return ScenarioCase(std::move(name), kOutput, std::string(kOutput) + "\n" + lines,
                      std::move(expected));
}

MalformedInput Output(std::string name, const std::string& distribution,
                      std::vector<std::string> expected) {
  return ScenarioCase(std::move(name), kOutput, "  output_tokens: " + distribution,
                      std::move(expected));
}

// An empirical output length read from `file` holding `text`.
MalformedInput LengthFile(std::string name, const std::string& file, const std::string& column,
                          const std::string& text, std::vector<std::string> expected) {
  const std::string from_file = "  output_tokens: {kind: empirical, file: " + file +
                                (column.empty() ? std::string() : ", column: " + column) + "}";
  return {std::move(name),
          {"validate", "s.yaml"},
          {{"s.yaml", Scenario(kOutput, from_file)}, {file, text}},
          1,
          std::move(expected)};
}

const char kBurstHeader[] =
    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";

}  // namespace

std::vector<MalformedInput> WorkloadCases() {
  return {
      // Sessions and agents.
      Workload("SessionPacingMisspelled", "  sessions: {turns: 2, pacing: closed_lop}",
               {"s.yaml:13: key 'workload.sessions.pacing': unknown session pacing 'closed_lop'",
                "did you mean 'closed_loop'?"}),
      Workload("AgentNeedsClosedLoop", "  sessions: {turns: 2, agent: {tool_calls: 2}}",
               {"s.yaml:13: key 'workload.sessions.agent'", "need pacing: closed_loop"}),
      Workload("AgentKeyMisspelled",
               "  sessions: {turns: 1, pacing: closed_loop, agent: {tool_calls: 2, "
               "tool_latency: 1}}",
               {"key 'workload.sessions.agent.tool_latency': unknown key",
                "did you mean 'tool_latency_s'?"}),
      Workload("AgentWithoutToolCalls",
               "  sessions: {turns: 1, pacing: closed_loop, agent: {tool_latency_s: 1}}",
               {"key 'workload.sessions.agent.tool_calls'", "required"}),
      Workload("AgentDuplicateKey",
               "  sessions: {turns: 1, pacing: closed_loop, agent: {tool_calls: 1, tool_calls: "
               "2}}",
               {"key 'workload.sessions.agent.tool_calls': duplicate key"}),
      Workload("ParallelCallsCanDrawZero",
               "  sessions: {turns: 1, pacing: closed_loop, agent: {tool_calls: 2, "
               "parallel_calls: {kind: uniform, min: 0, max: 3}}}",
               {"s.yaml:13: key 'workload.sessions.agent.parallel_calls'",
                "every draw must be at least one call"}),
      Workload("ParallelCallsUnbounded",
               "  sessions: {turns: 1, pacing: closed_loop, agent: {tool_calls: 2, "
               "parallel_calls: {kind: exponential, mean: 3, min: 1}}}",
               {"s.yaml:13: key 'workload.sessions.agent.parallel_calls'",
                "at most 256 calls per step (set max)"}),
      Workload("ClosedLoopSessionsWithLoadSchedule",
               "  sessions: {turns: 2, pacing: closed_loop}\n"
               "  load_schedule: [{until_s: 5, factor: 2}]",
               {"key 'workload.load_schedule': cannot be combined with closed-loop sessions"}),
      Workload("ClientsWithOpenLoopTurns",
               "  sessions: {turns: 3, pacing: open_loop}\n"
               "  arrivals: {kind: closed_loop, clients: 2}",
               {"key 'workload.sessions': closed-loop clients wait for each response"}),
      // Length distributions.
      Output("LengthKindMisspelled", "{kind: gama, shape: 2, scale: 3}",
             {"s.yaml:12: key 'workload.output_tokens.kind': unknown distribution 'gama'",
              "did you mean 'gamma'?"}),
      Output("GammaWithoutScale", "{kind: gamma, shape: 2}",
             {"key 'workload.output_tokens.scale'", "required"}),
      Output("NormalWithLognormalKey", "{kind: normal, mean: 50, sd: 5, median: 3}",
             {"key 'workload.output_tokens.median': does not apply here"}),
      Output("NormalTruncatedAway", "{kind: normal, mean: 50, sd: 1, min: 100}",
             {"key 'workload.output_tokens.min': the truncation leaves no probability"}),
      Output("ExponentialNegativeMean", "{kind: exponential, mean: -3}",
             {"key 'workload.output_tokens.mean'"}),
      Output("EmpiricalWeightsMismatch", "{kind: empirical, values: [10, 20], weights: [1]}",
             {"key 'workload.output_tokens.weights': expected one weight per value (2)"}),
      Output("EmpiricalValueNotANumber", "{kind: empirical, values: [10, many]}",
             {"key 'workload.output_tokens.values[1]': expected a number"}),
      Output("EmpiricalValuesAndFile", "{kind: empirical, values: [1], file: x.csv}",
             {"key 'workload.output_tokens.file': give either values"}),
      // Empirical length files.
      LengthFile("EmpiricalColumnMissing", "lengths.csv", "tokens", "id,length\n1,20\n",
                 {"lengths.csv:1: field 'tokens': no such column in the header (has: id, length)"}),
      LengthFile("EmpiricalCellNotANumber", "lengths.csv", "length", "id,length\n1,20\n2,abc\n",
                 {"lengths.csv:3: field 'length': expected a non-negative number, got 'abc'"}),
      LengthFile("EmpiricalCellShort", "lengths.csv", "length", "id,length\n1,20\n2\n",
                 {"lengths.csv:3: field 'length': the line has only 1 cells"}),
      LengthFile("EmpiricalJsonlFieldMissing", "lengths.jsonl", "n", "{\"n\": 3}\n{\"m\": 4}\n",
                 {"lengths.jsonl:2: field 'n': missing"}),
      LengthFile("EmpiricalJsonlFieldTwice", "lengths.jsonl", "n", "{\"n\": 3, \"n\": 4}\n",
                 {"lengths.jsonl:1: field 'n': given twice"}),
      LengthFile("EmpiricalJsonlMalformed", "lengths.jsonl", "n",
                 "{\"n\": 3}\n{\"a\": [1 2], \"n\": 4}\n",
                 {"lengths.jsonl:2: field 'n': malformed JSON in 'a': expected ','"}),
      LengthFile("EmpiricalPlainNegative", "lengths.txt", "", "12\n-4\n",
                 {"lengths.txt:2: expected a non-negative number, got '-4'"}),
      LengthFile("EmpiricalEmptyFile", "lengths.txt", "", "# nothing\n",
                 {"lengths.txt: no numbers"}),
      // TraceCase formats and their detection.
      TraceCase("TraceFormatUnknownHeader", "t.csv", "when,tokens\n1,2\n",
                {"t.csv:1: cannot tell the trace format", "ContextTokens (Azure)"}),
      TraceCase("BurstGptResponseNotANumber", "t.csv",
                std::string(kBurstHeader) + "1,ChatGPT,10,ten,20,API log\n",
                {"t.csv:2: field 'Response tokens': expected a whole number"}),
      TraceCase(
          "BurstGptBackwards", "t.csv",
          std::string(kBurstHeader) + "5,ChatGPT,10,1,11,API log\n4,ChatGPT,10,1,11,API log\n",
          {"t.csv:3: field 'Timestamp': earlier than the previous request's"}),
      TraceCase("BurstGptUnknownColumn", "t.csv",
                "Timestamp,Request tokens,Response tokens,Region\n1,1,1,eu\n",
                {"t.csv:1: field 'Region': unknown column (valid: Timestamp, Model"}),
      TraceCase("KvrouteColumnTwice", "t.csv",
                "time_s,prompt_tokens,output_tokens,session,session\n1,2,3,a,a\n",
                {"t.csv:1: field 'session': column given twice"}),
      TraceCase("KvrouteEmptyOutput", "t.csv", "time_s,prompt_tokens,output_tokens\n1,2,\n",
                {"t.csv:2: field 'output_tokens': empty"}),
      TraceCase("KvrouteJsonlUnknownField", "t.jsonl",
                "{\"time_s\": 1, \"prompt_tokens\": 2, \"output_tokens\": 3, \"user\": 4}\n",
                {"t.jsonl:1: field 'user': unknown field (valid: time_s"}),
      TraceCase("KvrouteJsonlBadIds", "t.jsonl",
                "{\"time_s\": 1, \"prompt_tokens\": 64, \"output_tokens\": 3, \"hash_ids\": 4}\n",
                {"t.jsonl:1: field 'hash_ids': expected an array of block ids"}),
      TraceCase("MooncakeDelayWithTimestamp", "t.jsonl",
                "{\"timestamp\": 0, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": [], "
                "\"delay\": 5}\n",
                {"t.jsonl:1: field 'delay': given with a timestamp: a turn has one or the other"}),
      TraceCase("MooncakeSessionTwice", "t.jsonl",
                "{\"timestamp\": 0, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": [], "
                "\"session_id\": 1, \"session_id\": 2}\n",
                {"t.jsonl:1: field 'session_id': given twice"}),
      {"ScenarioTraceFormatDetected",
       {"validate", "s.yaml"},
       {{"s.yaml", Scenario("  keys: 20\n  prompt: {system_tokens: 64, new_tokens: 16}\n"
                            "  output_tokens: 8",
                            "  trace: {file: t.csv}")},
        {"t.csv", std::string(kBurstHeader) + "1,ChatGPT,0,1,1,API log\n"}},
       1,
       {"s.yaml:10: key 'workload.trace.file': ",
        "t.csv:2: field 'Request tokens': expected a whole number in [1, "}},
      // Per-request CSV flags.
      {"PointRequestsInMissingDirectory",
       {"point", "s.yaml", "--policy", "flat_lb", "--qps", "1", "--requests", "no/such/r.csv"},
       {{"s.yaml", Scenario()}},
       2,
       {"--requests 'no/such/r.csv': the directory"}},
      {"PointRequestsOverTheScenario",
       {"point", "s.yaml", "--policy", "flat_lb", "--qps", "1", "--requests", "s.yaml"},
       {{"s.yaml", Scenario()}},
       2,
       {"--requests 's.yaml': is an input of this command"}},
      {"RunRequestsNotADirectory",
       {"run", "s.yaml", "--requests", "nope", "--quiet"},
       {{"s.yaml", Scenario()}},
       2,
       {"--requests 'nope': not an existing directory"}},
  };
}

}  // namespace kvroute::testing
