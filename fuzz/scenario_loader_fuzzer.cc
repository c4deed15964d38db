// The scenario loader (sim/runner/scenario_loader.h) on any text, with --set
// overrides: every line "#set path=value" of the input (a comment to YAML) is
// also given as an override. A bad scenario must end in a ScenarioError
// naming the file, line and key; anything else a sanitizer or libFuzzer
// catches (a crash, undefined behaviour, a leak, a hang, an unbounded
// allocation) is a bug.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "sim/runner/scenario_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(kvroute::fuzz::Text(data, size));
  std::vector<std::string> overrides;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#set ", 0) == 0) overrides.push_back(line.substr(5));
  }
  try {
    kvroute::sim::LoadScenarioText(text, "fuzz.yaml", overrides);
  } catch (const kvroute::sim::ScenarioError&) {
  }
  return 0;
}
