#include "analysis/hdf5_writer.h"

#include <H5Cpp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "analysis/column_table.h"
#include "analysis/hdf5_attributes.h"

namespace kvroute::analysis {
namespace {

template <typename Row, typename Field>
auto Column(const std::vector<Row>& rows, Field field) {
  std::vector<std::decay_t<decltype(field(rows.front()))>> out;
  out.reserve(rows.size());
  for (const Row& row : rows) out.push_back(field(row));
  return out;
}

void WritePoints(H5::H5File& file, const SweepResults& results) {
  const auto& points = results.points;
  ColumnTable table(points.size());
  table.Add("policy", Column(points, [](const PointResult& p) { return p.policy; }));
  table.Add("qps", Column(points, [](const PointResult& p) { return p.qps; }));
  table.Add("seed", Column(points, [](const PointResult& p) { return p.seed; }));
  table.Add("refinement_round",
            Column(points, [](const PointResult& p) { return uint64_t{p.refinement_round}; }));
  table.Add("offered", Column(points, [](const PointResult& p) { return p.offered; }));
  table.Add("completed", Column(points, [](const PointResult& p) { return p.completed; }));
  table.Add("unfinished", Column(points, [](const PointResult& p) { return p.unfinished; }));
  table.Add("rejected", Column(points, [](const PointResult& p) { return p.rejected; }));
  table.Add("failed", Column(points, [](const PointResult& p) { return p.failed; }));
  table.Add("retried", Column(points, [](const PointResult& p) { return p.retried; }));
  table.Add("measured", Column(points, [](const PointResult& p) { return p.measured; }));
  auto add_latency = [&](const std::string& prefix, LatencySummary PointResult::*member) {
    table.Add(prefix + "_p50_s",
              Column(points, [&](const PointResult& p) { return (p.*member).p50; }));
    table.Add(prefix + "_p90_s",
              Column(points, [&](const PointResult& p) { return (p.*member).p90; }));
    table.Add(prefix + "_p99_s",
              Column(points, [&](const PointResult& p) { return (p.*member).p99; }));
    table.Add(prefix + "_max_s",
              Column(points, [&](const PointResult& p) { return (p.*member).max; }));
    table.Add(prefix + "_mean_s",
              Column(points, [&](const PointResult& p) { return (p.*member).mean; }));
  };
  add_latency("ttft", &PointResult::ttft);
  add_latency("tpot", &PointResult::tpot);
  add_latency("e2e", &PointResult::e2e);
  for (size_t s = 0; s < results.slos.size(); ++s) {
    table.Add("slo" + std::to_string(s) + "_value_s",
              Column(points, [&](const PointResult& p) { return p.slo_values[s]; }));
  }
  table.Add("token_hit_rate",
            Column(points, [](const PointResult& p) { return p.token_hit_rate; }));
  table.Add("request_hit_rate",
            Column(points, [](const PointResult& p) { return p.request_hit_rate; }));
  table.Add("prefill_tokens_computed",
            Column(points, [](const PointResult& p) { return p.prefill_tokens_computed; }));
  table.Add("cache_evictions",
            Column(points, [](const PointResult& p) { return p.cache_evictions; }));
  table.Add("preemptions", Column(points, [](const PointResult& p) { return p.preemptions; }));
  table.Add("replica_failures",
            Column(points, [](const PointResult& p) { return p.replica_failures; }));
  table.Add("mean_in_system",
            Column(points, [](const PointResult& p) { return p.mean_in_system; }));
  table.Add("mean_held_kv_blocks",
            Column(points, [](const PointResult& p) { return p.mean_held_kv_blocks; }));
  table.Add("imbalance", Column(points, [](const PointResult& p) { return p.imbalance; }));
  table.Add("tenant_fairness",
            Column(points, [](const PointResult& p) { return p.tenant_fairness; }));
  table.Add("simulated_s", Column(points, [](const PointResult& p) { return p.simulated_s; }));
  table.Add("events", Column(points, [](const PointResult& p) { return p.events; }));
  // Policy statistics: the union of names, NaN where a policy has no such stat.
  std::vector<std::string> stat_names;
  for (const PointResult& p : points) {
    for (const auto& [name, value] : p.policy_stats) {
      if (std::find(stat_names.begin(), stat_names.end(), name) == stat_names.end()) {
        stat_names.push_back(name);
      }
    }
  }
  for (const std::string& name : stat_names) {
    table.Add(name, Column(points, [&](const PointResult& p) {
                for (const auto& [n, v] : p.policy_stats) {
                  if (n == name) return v;
                }
                return std::nan("");
              }));
  }
  H5::Group root = file.openGroup("/");
  table.Write(root, "points");

  size_t replicas = points.empty() ? 0 : points.front().replica_requests.size();
  std::vector<uint64_t> matrix;
  matrix.reserve(points.size() * replicas);
  for (const PointResult& p : points) {
    for (size_t r = 0; r < replicas; ++r) {
      matrix.push_back(r < p.replica_requests.size() ? p.replica_requests[r] : 0);
    }
  }
  hsize_t dims[2] = {points.size(), replicas};
  H5::DataSpace space(2, dims);
  H5::DataSet dataset = file.createDataSet("replica_requests", H5::PredType::NATIVE_UINT64, space);
  if (!matrix.empty()) dataset.write(matrix.data(), H5::PredType::NATIVE_UINT64);
}

void WriteTenants(H5::H5File& file, const SweepResults& results) {
  std::vector<uint64_t> point;
  std::vector<std::string> tenant;
  std::vector<uint64_t> measured;
  std::vector<double> p99;
  for (size_t i = 0; i < results.points.size(); ++i) {
    for (const TenantLatency& t : results.points[i].tenants) {
      point.push_back(i);
      tenant.push_back(t.tenant);
      measured.push_back(t.measured);
      p99.push_back(t.ttft_p99);
    }
  }
  ColumnTable table(point.size());
  table.Add("point", point);
  table.Add("tenant", tenant);
  table.Add("measured", measured);
  table.Add("ttft_p99_s", p99);
  H5::Group root = file.openGroup("/");
  table.Write(root, "tenants");
}

// One row per (point, bucket); compressed, as a large sweep has thousands of
// points of tens to hundreds of buckets.
void WriteTimeSeries(H5::H5File& file, const SweepResults& results) {
  std::vector<SeriesSample> rows;
  std::vector<uint64_t> point, bucket;
  for (size_t i = 0; i < results.points.size(); ++i) {
    const auto& series = results.points[i].series;
    for (size_t b = 0; b < series.size(); ++b) {
      point.push_back(i);
      bucket.push_back(b);
      rows.push_back(series[b]);
    }
  }
  ColumnTable table(rows.size());
  table.Add("point", point);
  table.Add("bucket", bucket);
  table.Add("start_s", Column(rows, [](const SeriesSample& s) { return s.start_s; }));
  table.Add("arrived", Column(rows, [](const SeriesSample& s) { return s.arrived; }));
  table.Add("completed", Column(rows, [](const SeriesSample& s) { return s.completed; }));
  table.Add("prompt_tokens", Column(rows, [](const SeriesSample& s) { return s.prompt_tokens; }));
  table.Add("hit_tokens", Column(rows, [](const SeriesSample& s) { return s.hit_tokens; }));
  table.Add("token_hit_rate", Column(rows, [](const SeriesSample& s) {
              return ShareOrNaN(s.hit_tokens, s.prompt_tokens);
            }));
  table.Add("mean_waiting", Column(rows, [](const SeriesSample& s) { return s.mean_waiting; }));
  table.Add("max_waiting", Column(rows, [](const SeriesSample& s) { return s.max_waiting; }));
  table.Add("kv_utilization", Column(rows, [](const SeriesSample& s) { return s.kv_utilization; }));
  table.Add("failures", Column(rows, [](const SeriesSample& s) { return s.failures; }));
  table.Add("recoveries", Column(rows, [](const SeriesSample& s) { return s.recoveries; }));
  H5::Group root = file.openGroup("/");
  table.Write(root, "timeseries", /*compress=*/true);
}

// One row per (point, bucket, deployment), for points with several deployments.
void WriteDeploymentSeries(H5::H5File& file, const SweepResults& results) {
  std::vector<DeploymentSample> rows;
  std::vector<uint64_t> point, bucket;
  std::vector<std::string> name;
  std::vector<double> share;
  for (size_t i = 0; i < results.points.size(); ++i) {
    const PointResult& p = results.points[i];
    const size_t count = p.deployment_names.size();
    for (size_t j = 0; j < p.deployment_series.size(); ++j) {
      const DeploymentSample& s = p.deployment_series[j];
      point.push_back(i);
      bucket.push_back(j / count);
      name.push_back(p.deployment_names[s.deployment]);
      share.push_back(ShareOrNaN(s.requests, BucketRequests(p, j)));
      rows.push_back(s);
    }
  }
  ColumnTable table(rows.size());
  table.Add("point", point);
  table.Add("bucket", bucket);
  table.Add("start_s", Column(rows, [](const DeploymentSample& s) { return s.start_s; }));
  table.Add("deployment",
            Column(rows, [](const DeploymentSample& s) { return uint64_t{s.deployment}; }));
  table.Add("deployment_name", name);
  table.Add("requests", Column(rows, [](const DeploymentSample& s) { return s.requests; }));
  table.Add("share", share);
  table.Add("prompt_tokens",
            Column(rows, [](const DeploymentSample& s) { return s.prompt_tokens; }));
  table.Add("hit_tokens", Column(rows, [](const DeploymentSample& s) { return s.hit_tokens; }));
  table.Add("token_hit_rate", Column(rows, [](const DeploymentSample& s) {
              return ShareOrNaN(s.hit_tokens, s.prompt_tokens);
            }));
  table.Add("hit_elsewhere",
            Column(rows, [](const DeploymentSample& s) { return s.hit_elsewhere; }));
  table.Add("hit_elsewhere_taken",
            Column(rows, [](const DeploymentSample& s) { return s.hit_elsewhere_taken; }));
  table.Add("cold_hit_elsewhere",
            Column(rows, [](const DeploymentSample& s) { return s.cold_hit_elsewhere; }));
  table.Add("cold_hit_elsewhere_taken",
            Column(rows, [](const DeploymentSample& s) { return s.cold_hit_elsewhere_taken; }));
  H5::Group root = file.openGroup("/");
  table.Write(root, "deployment_series", /*compress=*/true);
}

void WriteCapacity(H5::H5File& file, const SweepResults& results) {
  const auto& rows = results.capacity;
  ColumnTable table(rows.size());
  table.Add("policy", Column(rows, [](const CapacityRow& r) { return r.policy; }));
  table.Add("seed", Column(rows, [](const CapacityRow& r) { return r.seed; }));
  table.Add("slo_index", Column(rows, [](const CapacityRow& r) { return uint64_t{r.slo_index}; }));
  table.Add("capacity_qps", Column(rows, [](const CapacityRow& r) { return r.capacity.qps; }));
  table.Add("left_censored",
            Column(rows, [](const CapacityRow& r) { return uint64_t{r.capacity.left_censored}; }));
  table.Add("right_censored",
            Column(rows, [](const CapacityRow& r) { return uint64_t{r.capacity.right_censored}; }));
  H5::Group root = file.openGroup("/");
  table.Write(root, "capacity");
}

void WriteSummary(H5::H5File& file, const SweepResults& results) {
  const auto& rows = results.summary;
  ColumnTable table(rows.size());
  table.Add("policy", Column(rows, [](const SummaryRow& r) { return r.policy; }));
  table.Add("slo_index", Column(rows, [](const SummaryRow& r) { return uint64_t{r.slo_index}; }));
  table.Add("seeds", Column(rows, [](const SummaryRow& r) { return uint64_t{r.capacity.n}; }));
  table.Add("capacity_mean_qps", Column(rows, [](const SummaryRow& r) { return r.capacity.mean; }));
  table.Add("capacity_sd_qps", Column(rows, [](const SummaryRow& r) { return r.capacity.sd; }));
  table.Add("capacity_ci95_low_qps",
            Column(rows, [](const SummaryRow& r) { return r.capacity.ci_low; }));
  table.Add("capacity_ci95_high_qps",
            Column(rows, [](const SummaryRow& r) { return r.capacity.ci_high; }));
  table.Add("left_censored_seeds",
            Column(rows, [](const SummaryRow& r) { return uint64_t{r.left_censored}; }));
  table.Add("right_censored_seeds",
            Column(rows, [](const SummaryRow& r) { return uint64_t{r.right_censored}; }));
  table.Add("reference_qps", Column(rows, [](const SummaryRow& r) { return r.reference_qps; }));
  table.Add("token_hit_rate_at_reference",
            Column(rows, [](const SummaryRow& r) { return r.token_hit_rate; }));
  table.Add("slo_value_at_reference_s",
            Column(rows, [](const SummaryRow& r) { return r.slo_value; }));
  table.Add("ratio_seeds", Column(rows, [](const SummaryRow& r) { return uint64_t{r.ratio.n}; }));
  table.Add("ratio_mean", Column(rows, [](const SummaryRow& r) { return r.ratio.mean; }));
  table.Add("ratio_sd", Column(rows, [](const SummaryRow& r) { return r.ratio.sd; }));
  table.Add("ratio_ci95_low", Column(rows, [](const SummaryRow& r) { return r.ratio.ci_low; }));
  table.Add("ratio_ci95_high", Column(rows, [](const SummaryRow& r) { return r.ratio.ci_high; }));
  H5::Group root = file.openGroup("/");
  table.Write(root, "summary");
}

void WriteSlos(H5::H5File& file, const SweepResults& results) {
  const auto& slos = results.slos;
  ColumnTable table(slos.size());
  std::vector<uint64_t> index(slos.size());
  for (size_t i = 0; i < slos.size(); ++i) index[i] = i;
  table.Add("index", index);
  table.Add("metric", Column(slos, [](const Slo& s) { return std::string(MetricName(s.metric)); }));
  table.Add("percentile", Column(slos, [](const Slo& s) { return s.percentile; }));
  table.Add("threshold_s", Column(slos, [](const Slo& s) { return s.threshold_s; }));
  table.Add("label", Column(slos, [](const Slo& s) { return s.Label(); }));
  H5::Group root = file.openGroup("/");
  table.Write(root, "slos");
}

}  // namespace

void WriteResultsHdf5(const std::string& path, const FileAttributes& attributes,
                      const SweepResults& results) {
  std::string temporary = path + ".tmp";
  try {
    H5::Exception::dontPrint();
    {
      H5::H5File file(temporary, H5F_ACC_TRUNC);
      H5::Group root = file.openGroup("/");
      WriteStringAttribute(root, "kvroute_version", attributes.kvroute_version);
      WriteStringAttribute(root, "scenario_yaml", attributes.scenario_yaml);
      WriteStringAttribute(root, "command_line", attributes.command_line);
      WriteStringAttribute(root, "created_utc", attributes.created_utc);
      WriteStringAttribute(root, "scenario_hash", attributes.scenario_hash);
      WriteStringAttribute(root, "baseline", results.baseline);
      WritePoints(file, results);
      WriteTenants(file, results);
      WriteTimeSeries(file, results);
      WriteDeploymentSeries(file, results);
      WriteCapacity(file, results);
      WriteSummary(file, results);
      WriteSlos(file, results);
    }
    std::filesystem::rename(temporary, path);
  } catch (const H5::Exception& e) {
    std::filesystem::remove(temporary);
    throw std::runtime_error(path + ": cannot write HDF5: " + e.getDetailMsg());
  } catch (const std::filesystem::filesystem_error& e) {
    std::filesystem::remove(temporary);
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace kvroute::analysis
