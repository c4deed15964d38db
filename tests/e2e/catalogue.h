// The catalogue of malformed inputs (issue 18): each case writes its files
// into a fresh directory, runs the kvroute binary there, and checks the exit
// status and that stderr names the file, line and key, or the flag, at fault.
// The cases are split by input surface into catalogue_*_cases.cc.
#ifndef KVROUTE_TESTS_E2E_CATALOGUE_H_
#define KVROUTE_TESTS_E2E_CATALOGUE_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace kvroute::testing {

struct MalformedInput {
  std::string name;               // a C identifier: the test's name
  std::vector<std::string> args;  // after `kvroute`; "{traces}" is ../shared/traces
  std::vector<std::pair<std::string, std::string>> files;  // written in the case's directory
  int status = 1;                                          // 1: bad input, 2: bad command line
  std::vector<std::string> expected;                       // each must appear in stderr
};

inline void PrintTo(const MalformedInput& c, std::ostream* os) { *os << c.name; }

// A small valid scenario, and the same with one text replaced.
extern const char kBaseScenario[];
std::string Scenario(const std::string& from = "", const std::string& to = "");
// {name, args, {{"s.yaml", Scenario(from, to)}}, 1, expected}
MalformedInput ScenarioCase(std::string name, const std::string& from, const std::string& to,
                            std::vector<std::string> expected, std::string command = "validate");
// {name, {"trace-stats", file}, {{file, text}}, 1, expected}
MalformedInput TraceCase(std::string name, std::string file, std::string text,
                         std::vector<std::string> expected);

std::vector<MalformedInput> CliCases();
std::vector<MalformedInput> ScenarioCases();
std::vector<MalformedInput> InputFileCases();
std::vector<MalformedInput> WorkloadCases();
std::vector<MalformedInput> ClientsCases();

}  // namespace kvroute::testing

#endif  // KVROUTE_TESTS_E2E_CATALOGUE_H_
