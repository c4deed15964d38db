// The human-readable summary printed on stdout after a sweep: one table per SLO
// with each policy's capacity (mean and 95% CI over seeds), censoring, and hit
// rate and SLO metric at a common load (DESIGN.md, "Output").
#ifndef KVROUTE_ANALYSIS_TABLE_H_
#define KVROUTE_ANALYSIS_TABLE_H_

#include <ostream>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {

void PrintSummaryTables(const SweepResults& results, std::ostream& out);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_TABLE_H_
