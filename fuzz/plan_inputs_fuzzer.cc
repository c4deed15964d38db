// The files `kvroute plan` reads, on any bytes: the first byte picks the
// reader — the rates CSV (sim/runner/plan_command.h), or a previous plan as
// CSV or JSON (sim/runner/previous_plan.h) — and the second the replicas (1 to
// 64); the rest is the file. A bad file must end in a RatesFileError or
// PlanFileError naming the line.
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/fuzz_input.h"
#include "sim/runner/plan_command.h"
#include "sim/runner/previous_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::istringstream in{std::string(kvroute::fuzz::Text(data + 2, size - 2))};
  const uint32_t replicas = 1 + data[1] % 64;
  try {
    switch (data[0] % 3) {
      case 0:
        kvroute::sim::ReadKeyRates(in, "rates.csv");
        break;
      case 1:
        kvroute::sim::ReadPreviousPlanCsv(in, "plan.csv", replicas);
        break;
      default:
        kvroute::sim::ReadPreviousPlanJson(in, "plan.json", replicas);
        break;
    }
  } catch (const kvroute::sim::RatesFileError&) {
  } catch (const kvroute::sim::PlanFileError&) {
  }
  return 0;
}
