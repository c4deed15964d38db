#include "analysis/hdf5_writer.h"

#include <H5Cpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include "analysis/atomic_file.h"
#include "analysis/column_table.h"
#include "analysis/field_columns.h"
#include "analysis/hdf5_attributes.h"
#include "analysis/hdf5_reader.h"
#include "analysis/point_codec.h"
#include "analysis/point_fields.h"
#include "analysis/sweep_fields.h"

namespace kvroute::analysis {
namespace {

// The union of the points' policy statistics, in first-seen order.
std::vector<std::string> StatNames(const std::vector<PointResult>& points) {
  std::vector<std::string> names;
  for (const PointResult& p : points) {
    for (const auto& [name, value] : p.policy_stats) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  for (const std::string& name : names) {
    if (IsPointMetricColumn(name)) {
      throw std::invalid_argument("a policy statistic is named '" + name +
                                  "', like a column of /points");
    }
  }
  return names;
}

void WritePoints(H5::Group& root, const SweepResults& results) {
  const auto& points = results.points;
  ColumnTable table(points.size());
  AddFieldColumns(table, PointScalars().fields, points.size(), [&](size_t i) {
    return std::pair{&points[i], size_t{0}};
  });
  for (size_t s = 0; s < results.slos.size(); ++s) {
    std::vector<double> values(points.size());
    for (size_t i = 0; i < points.size(); ++i) values[i] = points[i].slo_values.at(s);
    table.Add(SloValueColumn(s), std::move(values));
  }
  // Policy statistics: NaN where a policy has no such statistic.
  for (const std::string& name : StatNames(points)) {
    std::vector<double> values(points.size(), std::nan(""));
    for (size_t i = 0; i < points.size(); ++i) {
      for (const auto& [n, v] : points[i].policy_stats) {
        if (n == name) values[i] = v;
      }
    }
    table.Add(name, std::move(values));
  }
  table.Write(root, "points");

  size_t replicas = points.empty() ? 0 : points.front().replica_requests.size();
  std::vector<uint64_t> matrix;
  matrix.reserve(points.size() * replicas);
  for (const PointResult& p : points) {
    if (p.replica_requests.size() != replicas) {
      throw std::invalid_argument("points with different replica counts");
    }
    matrix.insert(matrix.end(), p.replica_requests.begin(), p.replica_requests.end());
  }
  hsize_t dims[2] = {points.size(), replicas};
  H5::DataSpace space(2, dims);
  H5::DataSet dataset = root.createDataSet("replica_requests", H5::PredType::NATIVE_UINT64, space);
  if (!matrix.empty()) dataset.write(matrix.data(), H5::PredType::NATIVE_UINT64);
}

// A row table of the points: each row with its point's index, and for the
// series its bucket; the series are compressed, as a large sweep has
// thousands of points of tens to hundreds of buckets.
void WriteRowTable(H5::Group& root, const PointTable& table, const SweepResults& results) {
  std::vector<std::pair<const PointResult*, size_t>> rows;
  std::vector<uint64_t> point, bucket;
  for (size_t i = 0; i < results.points.size(); ++i) {
    const PointResult& p = results.points[i];
    const size_t per_bucket = table.name == "deployment_series" ? p.deployment_names.size() : 1;
    for (size_t r = 0; r < table.rows(p); ++r) {
      rows.emplace_back(&p, r);
      point.push_back(i);
      bucket.push_back(r / std::max<size_t>(per_bucket, 1));
    }
  }
  const bool series = table.name == "timeseries" || table.name == "deployment_series";
  ColumnTable columns(rows.size());
  columns.Add("point", std::move(point));
  if (series) columns.Add("bucket", std::move(bucket));
  AddFieldColumns(columns, table.fields, rows.size(), [&](size_t i) { return rows[i]; });
  columns.Write(root, std::string(table.name), /*compress=*/series);
}

template <typename Record>
void WriteSweepTable(H5::Group& root, const RecordTable<Record>& table,
                     const std::vector<Record>& records) {
  ColumnTable columns(records.size());
  AddFieldColumns(columns, table.fields, records.size(), [&](size_t i) {
    return std::pair{&records[i], i};
  });
  columns.Write(root, std::string(table.name));
}

void WriteProvenance(H5::Group& root, const Provenance& p) {
  H5::Group group = root.createGroup("provenance");
  WriteStringAttribute(group, "kvroute_version", p.kvroute_version);
  WriteStringAttribute(group, "git_revision", p.git_revision);
  WriteStringAttribute(group, "created_utc", p.created_utc);
  WriteStringAttribute(group, "working_directory", p.working_directory);
  WriteStringAttribute(group, "scenario_hash", p.scenario_hash);
  WriteText(group, "command_line", p.command_line);
  WriteText(group, "scenario_yaml", p.scenario_yaml);
  WriteText(group, "resolved_scenario_yaml", p.resolved_scenario_yaml);
}

// The point as the file keeps it: a NaN policy statistic marks a policy
// without it, so it does not come back, and statistics come back in column
// order.
std::string StoredForm(PointResult p) {
  std::erase_if(p.policy_stats, [](const auto& stat) { return std::isnan(stat.second); });
  std::sort(p.policy_stats.begin(), p.policy_stats.end());
  return EncodePoint(p);
}

// Every point read back from the file on disk equals the point written.
void Verify(const std::string& path, const SweepResults& results) {
  StoredResults stored = ReadResultsHdf5(path);
  const SweepResults& r = stored.results;
  if (r.points.size() != results.points.size() || r.capacity.size() != results.capacity.size() ||
      r.summary.size() != results.summary.size() || r.slos.size() != results.slos.size()) {
    throw std::runtime_error("a table has the wrong number of rows");
  }
  for (size_t i = 0; i < r.points.size(); ++i) {
    if (StoredForm(r.points[i]) != StoredForm(results.points[i])) {
      throw std::runtime_error("point " + std::to_string(i) + " differs");
    }
  }
}

}  // namespace

std::string ResultsHdf5Image(const Provenance& provenance, const SweepResults& results) {
  // Built with the core driver, in memory only: nothing touches the disk
  // until the whole image exists.
  static std::atomic<uint64_t> images{0};
  const std::string name =
      "kvroute-image-" + std::to_string(::getpid()) + "-" + std::to_string(images++);
  try {
    H5::Exception::dontPrint();
    H5::FileAccPropList access;
    access.setCore(1 << 20, /*backing_store=*/false);
    H5::H5File file(name, H5F_ACC_TRUNC, H5::FileCreatPropList::DEFAULT, access);
    H5::Group root = file.openGroup("/");
    WriteStringAttribute(root, "layout_version", kResultsLayoutVersion);
    WriteStringAttribute(root, "baseline", results.baseline);
    WriteProvenance(root, provenance);
    WritePoints(root, results);
    for (const PointTable& table : PointRowTables()) WriteRowTable(root, table, results);
    WriteSweepTable(root, CapacityTable(), results.capacity);
    WriteSweepTable(root, SummaryTable(), results.summary);
    WriteSweepTable(root, SloTable(), results.slos);
    file.flush(H5F_SCOPE_GLOBAL);
    ssize_t size = H5Fget_file_image(file.getId(), nullptr, 0);
    if (size < 0) throw std::runtime_error("cannot take the HDF5 file image");
    std::string image(static_cast<size_t>(size), '\0');
    if (H5Fget_file_image(file.getId(), image.data(), image.size()) != size) {
      throw std::runtime_error("cannot take the HDF5 file image");
    }
    return image;
  } catch (const H5::Exception& e) {
    throw std::runtime_error("cannot build the HDF5 file: " + e.getFuncName() + ": " +
                             e.getDetailMsg());
  }
}

void WriteResultsHdf5(const std::string& path, const Provenance& provenance,
                      const SweepResults& results) {
  std::string image;
  try {
    image = ResultsHdf5Image(provenance, results);
  } catch (const std::exception& e) {
    throw OutputFileError("cannot write " + path + ": " + e.what());
  }
  WriteFileAtomically(path, image, [&](const std::string& written) { Verify(written, results); });
}

}  // namespace kvroute::analysis
