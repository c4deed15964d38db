// `kvroute run --seeds N --policies a,b`: the scenario narrowed to what the
// run will do, with its stored YAML changed to match, so that the results
// file describes exactly the run.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_RUN_SUBSET_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_RUN_SUBSET_H_

#include <optional>
#include <string>

#include "sim/runner/scenario.h"

namespace kvroute::sim {

// `seeds`: the number of paired seeds, if given; `policies`: comma-separated
// labels, if given. A sweep.baseline left out is dropped. Throws UsageError.
void NarrowScenario(std::optional<uint32_t> seeds, std::optional<std::string> policies,
                    Scenario* scenario);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_RUN_SUBSET_H_
