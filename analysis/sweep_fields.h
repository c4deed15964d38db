// The fields of the sweep-level tables of a results file (DESIGN.md,
// "Output"): /capacity (one row per policy, seed and SLO), /summary (one row
// per policy and SLO) and /slos (one row per SLO), as field tables that drive
// the HDF5 writer, the reader and docs/OUTPUT.md, like point_fields.h.
#ifndef KVROUTE_ANALYSIS_SWEEP_FIELDS_H_
#define KVROUTE_ANALYSIS_SWEEP_FIELDS_H_

#include "analysis/field_table.h"
#include "analysis/sweep_results.h"

namespace kvroute::analysis {

// The row argument of these tables' accessors is the record's index in its
// vector (/slos stores it as `index`).
const RecordTable<CapacityRow>& CapacityTable();
const RecordTable<SummaryRow>& SummaryTable();
const RecordTable<Slo>& SloTable();

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_SWEEP_FIELDS_H_
