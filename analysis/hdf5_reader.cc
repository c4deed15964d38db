#include "analysis/hdf5_reader.h"

#include <H5Cpp.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/column_table.h"
#include "analysis/field_columns.h"
#include "analysis/hdf5_attributes.h"
#include "analysis/point_check.h"
#include "analysis/point_fields.h"
#include "analysis/sweep_fields.h"

namespace kvroute::analysis {
namespace {

// Above any table kvroute writes; a larger one is damage, not data.
constexpr size_t kMaxRows = size_t{1} << 32;

ColumnReader OpenTable(const H5::Group& root, const std::string& name) {
  if (!root.nameExists(name)) throw ColumnError("the file has no /" + name + " table");
  ColumnReader table(root, name);
  if (table.rows() > kMaxRows) throw ColumnError("/" + name + " has an implausible row count");
  return table;
}

template <typename Record>
std::vector<Record> ReadSweepTable(const H5::Group& root, const RecordTable<Record>& table) {
  ColumnReader columns = OpenTable(root, std::string(table.name));
  std::vector<Record> records(columns.rows());
  ReadFieldColumns(columns, table.fields, [&](size_t i) { return std::pair{&records[i], i}; });
  return records;
}

Provenance ReadProvenance(const H5::Group& root) {
  if (!root.nameExists("provenance")) throw ColumnError("the file has no /provenance group");
  H5::Group group = root.openGroup("provenance");
  Provenance p;
  p.kvroute_version = ReadStringAttribute(group, "kvroute_version");
  p.git_revision = ReadStringAttribute(group, "git_revision");
  p.created_utc = ReadStringAttribute(group, "created_utc");
  p.working_directory = ReadStringAttribute(group, "working_directory");
  p.scenario_hash = ReadStringAttribute(group, "scenario_hash");
  p.command_line = ReadText(group, "command_line");
  p.scenario_yaml = ReadText(group, "scenario_yaml");
  p.resolved_scenario_yaml = ReadText(group, "resolved_scenario_yaml");
  return p;
}

std::vector<PointResult> ReadPoints(const H5::Group& root, size_t slos) {
  ColumnReader table = OpenTable(root, "points");
  std::vector<PointResult> points(table.rows());
  ReadFieldColumns(table, PointScalars().fields, [&](size_t i) {
    return std::pair{&points[i], size_t{0}};
  });
  for (size_t s = 0; s < slos; ++s) {
    std::vector<double> values = table.Reals(SloValueColumn(s));
    for (size_t i = 0; i < points.size(); ++i) {
      std::string problem = CheckReal(FieldRange::kLatency, values[i]);
      if (!problem.empty()) {
        throw ColumnError("/points row " + std::to_string(i) + ": column '" + SloValueColumn(s) +
                          "' " + problem);
      }
      points[i].slo_values.push_back(values[i]);
    }
  }
  // Every other column is a policy statistic; NaN marks a policy without it.
  for (const std::string& column : table.columns()) {
    if (IsPointMetricColumn(column)) continue;
    std::vector<double> values = table.Reals(column);
    for (size_t i = 0; i < points.size(); ++i) {
      if (!std::isnan(values[i])) points[i].policy_stats.emplace_back(column, values[i]);
    }
  }
  return points;
}

void ReadReplicaRequests(const H5::Group& root, std::vector<PointResult>* points) {
  if (!root.nameExists("replica_requests")) {
    throw ColumnError("the file has no /replica_requests dataset");
  }
  H5::DataSet dataset = root.openDataSet("replica_requests");
  H5::DataSpace space = dataset.getSpace();
  hsize_t dims[2] = {0, 0};
  if (dataset.getTypeClass() != H5T_INTEGER || space.getSimpleExtentNdims() != 2) {
    throw ColumnError("/replica_requests is not a matrix of integers");
  }
  space.getSimpleExtentDims(dims);
  if (dims[0] != points->size()) {
    throw ColumnError("/replica_requests has " + std::to_string(dims[0]) + " rows, /points " +
                      std::to_string(points->size()));
  }
  if (dims[1] > 1'000'000) throw ColumnError("/replica_requests has an implausible width");
  std::vector<uint64_t> matrix(dims[0] * dims[1]);
  if (!matrix.empty()) dataset.read(matrix.data(), H5::PredType::NATIVE_UINT64);
  for (size_t i = 0; i < dims[0]; ++i) {
    (*points)[i].replica_requests.assign(
        matrix.begin() + static_cast<ptrdiff_t>(i * dims[1]),
        matrix.begin() + static_cast<ptrdiff_t>((i + 1) * dims[1]));
  }
}

// A table of rows per point: each row names its point; rows of a point are
// in order.
void ReadRowTable(const H5::Group& root, const PointTable& table,
                  std::vector<PointResult>* points) {
  const std::string name(table.name);
  // Files written before autoscalers' changes were kept have no such table.
  if (name == "fleet_changes" && !root.nameExists(name)) return;
  ColumnReader columns = OpenTable(root, name);
  std::vector<uint64_t> point = columns.Counts("point");
  std::vector<size_t> count(points->size(), 0);
  std::vector<std::pair<PointResult*, size_t>> rows(point.size());
  for (size_t i = 0; i < point.size(); ++i) {
    if (point[i] >= points->size()) {
      throw ColumnError("/" + name + " row " + std::to_string(i) + " names point " +
                        std::to_string(point[i]) + ", which /points lacks");
    }
    rows[i] = {&(*points)[point[i]], count[point[i]]++};
  }
  for (size_t p = 0; p < points->size(); ++p) table.resize((*points)[p], count[p]);
  ReadFieldColumns(columns, table.fields, [&](size_t i) { return rows[i]; });
  if (name == "tenants" || name == "fleet_changes") return;
  std::vector<uint64_t> bucket = columns.Counts("bucket");
  if (name == "timeseries") {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (bucket[i] != rows[i].second) {
        throw ColumnError("/timeseries row " + std::to_string(i) + ": bucket " +
                          std::to_string(bucket[i]) + " out of order");
      }
    }
    return;
  }
  // The deployments' names come back from their rows.
  std::vector<std::string> names = columns.Texts("deployment_name");
  for (size_t i = 0; i < rows.size(); ++i) {
    PointResult& p = *rows[i].first;
    const uint32_t d = p.deployment_series[rows[i].second].deployment;
    if (d >= p.deployment_series.size()) {
      throw ColumnError("/deployment_series row " + std::to_string(i) + ": deployment " +
                        std::to_string(d) + " out of range");
    }
    if (p.deployment_names.size() <= d) p.deployment_names.resize(d + 1);
    if (p.deployment_names[d].empty()) p.deployment_names[d] = names[i];
    if (p.deployment_names[d] != names[i] || names[i].empty()) {
      throw ColumnError("/deployment_series row " + std::to_string(i) +
                        ": deployment_name disagrees with the deployment's other rows");
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const PointResult& p = *rows[i].first;
    if (bucket[i] != rows[i].second / p.deployment_names.size()) {
      throw ColumnError("/deployment_series row " + std::to_string(i) + ": bucket " +
                        std::to_string(bucket[i]) + " out of order");
    }
  }
}

// The tables must describe the same sweep.
void CheckAgreement(const SweepResults& r) {
  std::set<std::string> policies;
  std::set<std::pair<std::string, uint64_t>> runs;
  for (const PointResult& p : r.points) {
    policies.insert(p.policy);
    runs.insert({p.policy, p.seed});
  }
  auto disagree = [](const std::string& what) {
    throw ColumnError("the file's tables disagree: " + what);
  };
  if (!r.baseline.empty() && !policies.count(r.baseline)) {
    disagree("the baseline '" + r.baseline + "' is not a policy of /points");
  }
  for (size_t i = 0; i < r.capacity.size(); ++i) {
    const CapacityRow& c = r.capacity[i];
    if (!runs.count({c.policy, c.seed})) {
      disagree("/capacity row " + std::to_string(i) + " is of policy '" + c.policy + "' at seed " +
               std::to_string(c.seed) + ", which /points lacks");
    }
    if (c.slo_index >= r.slos.size()) {
      disagree("/capacity row " + std::to_string(i) + " names SLO " + std::to_string(c.slo_index) +
               ", which /slos lacks");
    }
  }
  std::set<std::pair<std::string, uint32_t>> summarised;
  for (size_t i = 0; i < r.summary.size(); ++i) {
    const SummaryRow& s = r.summary[i];
    const std::string row = "/summary row " + std::to_string(i);
    if (!policies.count(s.policy)) {
      disagree(row + " names policy '" + s.policy + "', which /points lacks");
    }
    if (s.slo_index >= r.slos.size()) {
      disagree(row + " names SLO " + std::to_string(s.slo_index) + ", which /slos lacks");
    }
    if (!summarised.insert({s.policy, s.slo_index}).second) {
      disagree(row + " repeats policy '" + s.policy + "' and SLO " + std::to_string(s.slo_index));
    }
  }
  if (summarised.size() != policies.size() * r.slos.size()) {
    disagree("/summary has " + std::to_string(summarised.size()) + " (policy, SLO) rows for " +
             std::to_string(policies.size()) + " policies of /points and " +
             std::to_string(r.slos.size()) + " SLOs");
  }
  PointExpectations expected;
  expected.slos = r.slos.size();
  expected.replicas = r.points.empty() ? 0 : r.points.front().replica_requests.size();
  for (size_t i = 0; i < r.points.size(); ++i) {
    try {
      CheckPoint(r.points[i], expected);
    } catch (const PointCheckError& e) {
      throw ColumnError("/points row " + std::to_string(i) + ": " + e.what());
    }
  }
}

}  // namespace

StoredResults ReadResultsHdf5(const std::string& path) {
  StoredResults stored;
  try {
    H5::Exception::dontPrint();
    H5::H5File file(path, H5F_ACC_RDONLY);
    H5::Group root = file.openGroup("/");
    if (!root.attrExists("layout_version")) {
      throw ResultsFileError(path +
                             ": no layout_version attribute: not a results file, or one written "
                             "by an earlier kvroute (run its scenario again to read it here)");
    }
    std::string layout = ReadStringAttribute(root, "layout_version");
    if (layout != kResultsLayoutVersion) {
      throw ResultsFileError(path + ": results layout " + layout + ", this kvroute reads layout " +
                             kResultsLayoutVersion);
    }
    stored.provenance = ReadProvenance(root);
    SweepResults& r = stored.results;
    r.baseline = ReadStringAttribute(root, "baseline");
    r.slos = ReadSweepTable(root, SloTable());
    r.points = ReadPoints(root, r.slos.size());
    ReadReplicaRequests(root, &r.points);
    for (const PointTable& table : PointRowTables()) ReadRowTable(root, table, &r.points);
    r.capacity = ReadSweepTable(root, CapacityTable());
    r.summary = ReadSweepTable(root, SummaryTable());
    CheckAgreement(r);
  } catch (const H5::Exception& e) {
    throw ResultsFileError(path + ": not a kvroute results file (" + e.getFuncName() + ": " +
                           e.getDetailMsg() + ")");
  } catch (const ColumnError& e) {
    throw ResultsFileError(path + ": " + e.what());
  }
  return stored;
}

}  // namespace kvroute::analysis
