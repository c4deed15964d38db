// What `kvroute size` prints (sim/runner/commands/size.cc): the cheapest fleet
// with every candidate's answer and its neighbours, or the load a budget
// sustains per candidate.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_SIZE_REPORT_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_SIZE_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

#include "analysis/fleet_search.h"
#include "sim/runner/scenario.h"
#include "sim/runner/sizing.h"

namespace kvroute::sim {

// "3 x h100-llama3.1-8b-bf16 + 2 x llama-3.1-8b-a100-sxm-80gb-tp1-bf16", the
// kinds in the candidates' order.
std::string FleetName(const std::vector<analysis::FleetKind>& kinds, const analysis::Fleet& fleet);

// `price_sources[k]`: where candidate k's price comes from (PriceSource, or
// the deployment that gave it).
void PrintSizingReport(const std::vector<Scenario>& candidates,
                       const std::vector<std::string>& price_sources, const SizingOptions& options,
                       const SizingReport& report, std::ostream& out);

// `mix`, with --mixes: the best mix the budget buys (MixWithinBudget).
void PrintBudgetReport(const std::vector<Scenario>& candidates, const SizingOptions& options,
                       double budget, double precision, const std::vector<BudgetLoad>& rows,
                       const BudgetMix* mix, std::ostream& out);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_SIZE_REPORT_H_
