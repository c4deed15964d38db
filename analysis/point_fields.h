// The one table of what a point measured (DESIGN.md, "Metrics" and "One table
// of point metrics"): every field of a PointResult with its name, unit, type,
// allowed values and description, in output order. `point --json`, the
// results file's /points, /tenants, /timeseries, /deployment_series and
// /fleet_changes, the
// point codec (partial files, MPI), the checks on read-back and docs/OUTPUT.md
// are all generated from it. A new metric is a new member of PointResult and
// one row here.
#ifndef KVROUTE_ANALYSIS_POINT_FIELDS_H_
#define KVROUTE_ANALYSIS_POINT_FIELDS_H_

#include <span>
#include <string>

#include "analysis/field_table.h"
#include "analysis/point_metrics.h"

namespace kvroute::analysis {

using PointField = Field<PointResult>;
using PointTable = RecordTable<PointResult>;

// The point's own fields: one row per point (/points; the top level of
// `point --json`).
const PointTable& PointScalars();

// Tables of which a point holds several rows, in output order: /tenants,
// /timeseries, /deployment_series, /fleet_changes (the keys of the same name
// in JSON).
std::span<const PointTable> PointRowTables();

// The columns of /points whose number and names depend on the run: the value
// of each SLO's metric, and each policy statistic. Listed for the docs; the
// writers handle them next to the table.
struct DynamicColumn {
  std::string_view name;  // a pattern: "slo<i>_value_s"
  std::string_view unit;
  FieldType type;
  FieldRange range;
  std::string_view description;
};
std::span<const DynamicColumn> PointDynamicColumns();

// "slo0_value_s": the /points column (and JSON key) of SLO `index`'s value.
std::string SloValueColumn(size_t index);

// True if `name` is a column of /points other than a policy statistic (a
// fixed field or an SLO value column).
bool IsPointMetricColumn(std::string_view name);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_POINT_FIELDS_H_
