// The human-readable summary printed on stdout after a sweep: one table per SLO
// with each policy's capacity (mean and 95% CI over seeds), censoring, and hit
// rate and SLO metric at a common load (DESIGN.md, "Output").
#ifndef KVROUTE_ANALYSIS_TABLE_H_
#define KVROUTE_ANALYSIS_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {

void PrintSummaryTables(const SweepResults& results, std::ostream& out);

// The same summary for other tools: one CSV table (a header row, then a row per
// (SLO, policy); empty cells for NaN), or Markdown tables, one per SLO.
void PrintSummaryCsv(const SweepResults& results, std::ostream& out);
void PrintSummaryMarkdown(const SweepResults& results, std::ostream& out);

// Policies in the order of the summary.
std::vector<std::string> PoliciesInSummary(const SweepResults& results);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_TABLE_H_
