#include "analysis/output_schema.h"

#include <string>

#include "analysis/point_fields.h"
#include "analysis/sweep_fields.h"

namespace kvroute::analysis {
namespace {

struct Row {
  std::string_view name, unit;
  FieldType type;
  FieldRange range;
  std::string_view description;
  bool derived = false;
};

void Header(std::ostream& out) {
  out << "| column | unit | type | values | description |\n|---|---|---|---|---|\n";
}

void Line(std::ostream& out, const Row& r) {
  out << "| `" << r.name << "` | " << (r.unit.empty() ? "" : r.unit) << " | " << TypeName(r.type)
      << " | " << RangeText(r.range) << " | " << r.description
      << (r.derived ? " — derived, not read back" : "") << " |\n";
}

template <typename Record>
void Fields(std::ostream& out, const RecordTable<Record>& table) {
  for (const Field<Record>& f : table.fields) {
    Line(out, Row{f.name, f.unit, f.type, f.range, f.description, f.derived()});
  }
}

template <typename Record>
void SweepTable(std::ostream& out, const RecordTable<Record>& table) {
  out << "\n#### `/" << table.name << "`: " << table.description << "\n\n";
  Header(out);
  Fields(out, table);
}

}  // namespace

void PrintOutputSchemaMarkdown(std::ostream& out) {
  out << "#### `/" << PointScalars().name << "`: " << PointScalars().description << "\n\n";
  Header(out);
  Fields(out, PointScalars());
  for (const DynamicColumn& c : PointDynamicColumns()) {
    Line(out, Row{c.name, c.unit, c.type, c.range, c.description});
  }
  out << "\n#### `/replica_requests`: points × replicas\n\n"
         "uint64 matrix: row i is `/points` row i, column r replica r (deployments in order); "
         "requests dispatched to the replica after the warm-up (disaggregated: each request at "
         "its decode replica; prefill replicas count none).\n";
  for (const PointTable& table : PointRowTables()) {
    out << "\n#### `/" << table.name << "`: " << table.description << "\n\n";
    Header(out);
    Line(out, Row{"point", "", FieldType::kCount, FieldRange::kAnyCount,
                  "the row of `/points` this row belongs to"});
    if (table.name != "tenants") {
      Line(out, Row{"bucket", "", FieldType::kCount, FieldRange::kAnyCount,
                    "index of the bucket in the point's series"});
    }
    Fields(out, table);
  }
  SweepTable(out, CapacityTable());
  SweepTable(out, SummaryTable());
  SweepTable(out, SloTable());

  out << "\n#### `kvroute point --json`\n\n"
         "One object. Its keys are the columns of `/points` above, in that order (`slo<i>_value_s` "
         "after the fixed columns), then:\n\n"
         "| key | value |\n|---|---|\n"
         "| `slos` | one object per SLO: `index`, `label`, `value_s` (as `slo<i>_value_s`), `met` "
         "(true if the point meets it), `unbounded` |\n"
         "| `replica_requests` | the point's row of `/replica_requests` |\n"
         "| `policy_stats` | the policy's statistics, by name |\n";
  for (const PointTable& table : PointRowTables()) {
    out << "| `" << table.name << "` | one object per row of `/" << table.name
        << "` of the point, with its columns but `point` and `bucket` |\n";
  }
  out << "| `unbounded` | the keys of this object whose value is +inf (a percentile censored by "
         "unfinished requests): each is written as null |\n\n"
         "Every number is valid JSON: null where the value is NaN (no data) or +inf (then its key "
         "is listed in the `unbounded` of the same object; `slos` entries and `tenants` rows have "
         "one too).\n";
}

}  // namespace kvroute::analysis
