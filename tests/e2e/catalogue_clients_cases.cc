// Malformed per-client workloads (workload.clients, docs/WORKLOADS.md
// "Per-client arrivals (ServeGen)"): keys the clients replace, a file too
// short for the run, bad rows of the clients file. Each names the file, line
// and key, or the file, line and column.
#include "tests/e2e/catalogue.h"

namespace kvroute::testing {
namespace {

// Two clients, 10 s windows over [0, 30) s; the base scenario runs 20 s.
const char kGoodFile[] =
    "# two clients\n"
    "client,window_start_s,rate,cv,pattern,shape,scale\n"
    "7,0,2,1,Gamma,1,0.5\n"
    "7,10,1,1.4,Weibull,0.7,0.8\n"
    "7,20,0,0,,0,0\n"
    "3,0,1,1,Gamma,1,1\n"
    "3,20,1,1,Gamma,1,1\n";

// The base scenario with `lines` in place of workload.keys (line 10), reading
// c.csv holding `file` (and t.jsonl, a one-request Mooncake trace).
MalformedInput Clients(std::string name, const std::string& lines, const std::string& file,
                       std::vector<std::string> expected) {
  return {std::move(name),
          {"validate", "s.yaml"},
          {{"s.yaml", Scenario("  keys: 20", lines)},
           {"c.csv", file},
           {"t.jsonl",
            R"({"timestamp": 0, "input_length": 1024, "output_length": 4, "hash_ids": [0, 1]})"
            "\n"}},
          1,
          std::move(expected)};
}

MalformedInput Beside(std::string name, const std::string& line, const std::string& key) {
  return Clients(std::move(name), "  clients: {file: c.csv}\n" + line, kGoodFile,
                 {"s.yaml:11: key 'workload." + key + "'",
                  "workload.clients gives the keys, tenants and arrival times"});
}

// c.csv with `row` after the good file's rows.
MalformedInput BadRow(std::string name, const std::string& row, std::vector<std::string> expected) {
  return Clients(std::move(name), "  clients: {file: c.csv}", std::string(kGoodFile) + row,
                 std::move(expected));
}

}  // namespace

std::vector<MalformedInput> ClientsCases() {
  const std::string uses = "  clients: {file: c.csv}";
  return {
      Beside("ClientsWithKeys", "  keys: 20", "keys"),
      Beside("ClientsWithTenants", "  tenants: 2", "tenants"),
      Beside("ClientsWithClosedLoopArrivals", "  arrivals: {kind: closed_loop, clients: 4}",
             "arrivals"),
      Beside("ClientsWithLoadSchedule", "  load_schedule: [{until_s: 5, factor: 2}]",
             "load_schedule"),
      Beside("ClientsWithDrift", "  drift: {sigma: 0.3}", "drift"),
      Beside("ClientsWithWhales", "  whales: [0.5]", "whales"),
      Clients("ClientsWithTrace", uses + "\n  trace: {file: t.jsonl}", kGoodFile,
              {"s.yaml:10: key 'workload.clients'", "a trace replaces the synthetic workload"}),
      Clients("ClientsWithSharedPrefix", uses + "\n  shared_prefix: {groups: 2}", kGoodFile,
              {"s.yaml:10: key 'workload.clients'", "shared_prefix replaces the synthetic"}),
      Clients("ClientsWithClosedLoopSessions",
              uses + "\n  sessions: {turns: 2, pacing: closed_loop}", kGoodFile,
              {"s.yaml:11: key 'workload.sessions'", "closed-loop sessions"}),
      Clients("ClientsKeysPerClientZero", "  clients: {file: c.csv, keys_per_client: 0}", kGoodFile,
              {"s.yaml:10: key 'workload.clients.keys_per_client'", "must be in [1, "}),
      Clients("ClientsAggregateMisspelled", "  clients: {file: c.csv, aggregate: trace}", kGoodFile,
              {"s.yaml:10: key 'workload.clients.aggregate': unknown aggregate 'trace'"}),
      Clients("ClientsFileMissing", "  clients: {file: none.csv}", kGoodFile,
              {"s.yaml:10: key 'workload.clients.file'", "none.csv"}),
      Clients(
          "ClientsFileTooShort", uses,
          "client,window_start_s,rate,cv,pattern,shape,scale\n1,0,1,1,Gamma,1,1\n"
          "1,5,1,1,Gamma,1,1\n",
          {"s.yaml:10: key 'workload.clients.file'", "over [0, 20) s", "covers only [0, 10) s"}),
      Clients("ClientsStartBeyondTheFile", "  clients: {file: c.csv, start_s: 15}", kGoodFile,
              {"s.yaml:10: key 'workload.clients.start_s'", "over [15, 35) s",
               "covers only [0, 30) s"}),
      Clients("ClientsAllIdle", uses,
              "client,window_start_s,rate,cv,pattern,shape,scale\n1,0,0,0,,0,0\n1,10,0,0,,0,0\n"
              "1,20,1,1,Gamma,1,1\n",
              {"s.yaml:10: key 'workload.clients.file'", "no client sends a request over [0, 20)"}),
      Clients("ClientsFileWithoutHeader", uses, "7,0,2,1,Gamma,1,0.5\n",
              {"c.csv:1: expected the header 'client,window_start_s,rate,cv,pattern,shape,scale'"}),
      BadRow("ClientsRateNotANumber", "9,0,fast,1,Gamma,1,1\n",
             {"c.csv:8: column 'rate': expected a finite number, got 'fast'"}),
      BadRow("ClientsNegativeRate", "9,0,-1,1,Gamma,1,1\n",
             {"c.csv:8: column 'rate': must not be negative"}),
      BadRow("ClientsUnknownPattern", "9,0,1,1,Poisson,1,1\n",
             {"c.csv:8: column 'pattern': unknown pattern 'Poisson'"}),
      BadRow("ClientsRequestsWithoutPattern", "9,0,1,1,,1,1\n",
             {"c.csv:8: column 'pattern': a window with requests (rate 1) needs a pattern"}),
      BadRow("ClientsShapeZero", "9,0,1,1,Gamma,0,1\n",
             {"c.csv:8: column 'shape': a Gamma window needs a positive shape"}),
      BadRow("ClientsTooFewColumns", "9,0,1,1,Gamma,1\n", {"c.csv:8: expected 7 columns, found 6"}),
      BadRow("ClientsDuplicateWindow", "9,0,1,1,Gamma,1,1\n9,0,1,1,Gamma,1,1\n",
             {"c.csv:9: column 'window_start_s'", "in time order, once each"}),
      BadRow("ClientsUnsortedWindows", "9,10,1,1,Gamma,1,1\n9,0,1,1,Gamma,1,1\n",
             {"c.csv:9: column 'window_start_s'", "does not follow the client's previous window"}),
      BadRow("ClientsRowsApart", "7,30,1,1,Gamma,1,1\n",
             {"c.csv:8: column 'client': client 7's rows must be together (it began at line 3)"}),
      BadRow("ClientsOffTheGrid", "9,5,1,1,Gamma,1,1\n9,15,1,1,Gamma,1,1\n",
             {"c.csv:8: column 'window_start_s'", "is not on the grid"}),
  };
}

}  // namespace kvroute::testing
