#include "analysis/hdf5_reader.h"

#include <H5Cpp.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "analysis/hdf5_attributes.h"

namespace kvroute::analysis {
namespace {

// One compound dataset, read a column at a time by name.
class TableReader {
 public:
  TableReader(const H5::H5File& file, const std::string& name) : name_(name) {
    dataset_ = file.openDataSet(name);
    rows_ = static_cast<size_t>(dataset_.getSpace().getSimpleExtentNpoints());
    H5::CompType type = dataset_.getCompType();
    for (int i = 0; i < type.getNmembers(); ++i) columns_.push_back(type.getMemberName(i));
  }

  size_t rows() const { return rows_; }
  const std::vector<std::string>& columns() const { return columns_; }
  bool Has(const std::string& column) const {
    return std::find(columns_.begin(), columns_.end(), column) != columns_.end();
  }

  std::vector<double> Doubles(const std::string& column) const {
    return Numbers<double>(column, H5::PredType::NATIVE_DOUBLE);
  }
  std::vector<uint64_t> Integers(const std::string& column) const {
    return Numbers<uint64_t>(column, H5::PredType::NATIVE_UINT64);
  }
  std::vector<std::string> Strings(const std::string& column) const {
    Require(column);
    H5::CompType stored = dataset_.getCompType();
    size_t width = stored.getMemberStrType(stored.getMemberIndex(column)).getSize();
    H5::CompType memory(width);
    memory.insertMember(column, 0, H5::StrType(H5::PredType::C_S1, width));
    std::vector<char> buffer(std::max<size_t>(rows_ * width, 1), 0);
    if (rows_ > 0) dataset_.read(buffer.data(), memory);
    std::vector<std::string> values(rows_);
    for (size_t r = 0; r < rows_; ++r) {
      const char* cell = buffer.data() + r * width;
      values[r].assign(cell, strnlen(cell, width));
    }
    return values;
  }

 private:
  void Require(const std::string& column) const {
    if (!Has(column)) throw ResultsFileError("/" + name_ + " has no column '" + column + "'");
  }
  template <typename T>
  std::vector<T> Numbers(const std::string& column, const H5::PredType& type) const {
    Require(column);
    H5::CompType memory(sizeof(T));
    memory.insertMember(column, 0, type);
    std::vector<T> values(rows_);
    if (rows_ > 0) dataset_.read(values.data(), memory);
    return values;
  }

  std::string name_;
  H5::DataSet dataset_;
  size_t rows_ = 0;
  std::vector<std::string> columns_;
};

std::vector<Slo> ReadSlos(const H5::H5File& file) {
  TableReader t(file, "slos");
  std::vector<std::string> metric = t.Strings("metric");
  std::vector<double> percentile = t.Doubles("percentile"), threshold = t.Doubles("threshold_s");
  std::vector<Slo> slos;
  for (size_t i = 0; i < t.rows(); ++i) {
    Slo slo;
    if (metric[i] == "ttft") {
      slo.metric = LatencyMetric::kTtft;
    } else if (metric[i] == "tpot") {
      slo.metric = LatencyMetric::kTpot;
    } else if (metric[i] == "e2e") {
      slo.metric = LatencyMetric::kE2e;
    } else {
      throw ResultsFileError("/slos row " + std::to_string(i) + ": unknown metric '" + metric[i] +
                             "'");
    }
    slo.percentile = percentile[i];
    slo.threshold_s = threshold[i];
    slos.push_back(slo);
  }
  return slos;
}

// The columns of /points that are not policy statistics.
const std::set<std::string>& PointColumns(size_t slos) {
  static std::set<std::string> names;
  names = {"policy",
           "qps",
           "seed",
           "refinement_round",
           "offered",
           "completed",
           "unfinished",
           "rejected",
           "failed",
           "retried",
           "measured",
           "token_hit_rate",
           "request_hit_rate",
           "prefill_tokens_computed",
           "cache_evictions",
           "preemptions",
           "replica_failures",
           "mean_in_system",
           "mean_held_kv_blocks",
           "imbalance",
           "tenant_fairness",
           "simulated_s",
           "events"};
  for (const char* metric : {"ttft", "tpot", "e2e"}) {
    for (const char* stat : {"p50", "p90", "p99", "max", "mean"}) {
      names.insert(std::string(metric) + "_" + stat + "_s");
    }
  }
  for (size_t s = 0; s < slos; ++s) names.insert("slo" + std::to_string(s) + "_value_s");
  return names;
}

std::vector<PointResult> ReadPoints(const H5::H5File& file, size_t slos) {
  TableReader t(file, "points");
  std::vector<PointResult> points(t.rows());
  auto set_string = [&](const char* c, std::string PointResult::*m) {
    std::vector<std::string> v = t.Strings(c);
    for (size_t i = 0; i < v.size(); ++i) points[i].*m = v[i];
  };
  auto set_double = [&](const std::string& c, auto setter) {
    std::vector<double> v = t.Doubles(c);
    for (size_t i = 0; i < v.size(); ++i) setter(points[i], v[i]);
  };
  auto set_integer = [&](const char* c, uint64_t PointResult::*m) {
    std::vector<uint64_t> v = t.Integers(c);
    for (size_t i = 0; i < v.size(); ++i) points[i].*m = v[i];
  };
  set_string("policy", &PointResult::policy);
  set_double("qps", [](PointResult& p, double v) { p.qps = v; });
  set_integer("seed", &PointResult::seed);
  std::vector<uint64_t> round = t.Integers("refinement_round");
  for (size_t i = 0; i < round.size(); ++i) points[i].refinement_round = uint32_t(round[i]);
  for (auto [c, m] : {std::pair{"offered", &PointResult::offered},
                      {"completed", &PointResult::completed},
                      {"unfinished", &PointResult::unfinished},
                      {"rejected", &PointResult::rejected},
                      {"failed", &PointResult::failed},
                      {"retried", &PointResult::retried},
                      {"measured", &PointResult::measured},
                      {"prefill_tokens_computed", &PointResult::prefill_tokens_computed},
                      {"cache_evictions", &PointResult::cache_evictions},
                      {"preemptions", &PointResult::preemptions},
                      {"replica_failures", &PointResult::replica_failures},
                      {"events", &PointResult::events}}) {
    set_integer(c, m);
  }
  for (auto [c, m] : {std::pair{"token_hit_rate", &PointResult::token_hit_rate},
                      {"request_hit_rate", &PointResult::request_hit_rate},
                      {"mean_in_system", &PointResult::mean_in_system},
                      {"mean_held_kv_blocks", &PointResult::mean_held_kv_blocks},
                      {"imbalance", &PointResult::imbalance},
                      {"tenant_fairness", &PointResult::tenant_fairness},
                      {"simulated_s", &PointResult::simulated_s}}) {
    set_double(c, [m](PointResult& p, double v) { p.*m = v; });
  }
  for (auto [metric, m] : {std::pair{"ttft", &PointResult::ttft},
                           {"tpot", &PointResult::tpot},
                           {"e2e", &PointResult::e2e}}) {
    for (auto [stat, f] : {std::pair{"p50", &LatencySummary::p50},
                           {"p90", &LatencySummary::p90},
                           {"p99", &LatencySummary::p99},
                           {"max", &LatencySummary::max},
                           {"mean", &LatencySummary::mean}}) {
      set_double(std::string(metric) + "_" + stat + "_s",
                 [m, f](PointResult& p, double v) { p.*m.*f = v; });
    }
  }
  for (size_t s = 0; s < slos; ++s) {
    set_double("slo" + std::to_string(s) + "_value_s",
               [](PointResult& p, double v) { p.slo_values.push_back(v); });
  }
  // Every other column is a policy statistic; NaN marks a policy without it.
  const std::set<std::string>& known = PointColumns(slos);
  for (const std::string& c : t.columns()) {
    if (known.count(c)) continue;
    set_double(c, [&c](PointResult& p, double v) {
      if (!std::isnan(v)) p.policy_stats.emplace_back(c, v);
    });
  }
  return points;
}

void ReadReplicaRequests(const H5::H5File& file, std::vector<PointResult>* points) {
  H5::DataSet dataset = file.openDataSet("replica_requests");
  hsize_t dims[2] = {0, 0};
  dataset.getSpace().getSimpleExtentDims(dims);
  if (dims[0] != points->size()) throw ResultsFileError("/replica_requests: wrong row count");
  std::vector<uint64_t> matrix(dims[0] * dims[1]);
  if (!matrix.empty()) dataset.read(matrix.data(), H5::PredType::NATIVE_UINT64);
  for (size_t i = 0; i < dims[0]; ++i) {
    (*points)[i].replica_requests.assign(
        matrix.begin() + static_cast<ptrdiff_t>(i * dims[1]),
        matrix.begin() + static_cast<ptrdiff_t>((i + 1) * dims[1]));
  }
}

void ReadTenants(const H5::H5File& file, std::vector<PointResult>* points) {
  TableReader t(file, "tenants");
  std::vector<uint64_t> point = t.Integers("point"), measured = t.Integers("measured");
  std::vector<std::string> tenant = t.Strings("tenant");
  std::vector<double> p99 = t.Doubles("ttft_p99_s");
  for (size_t i = 0; i < t.rows(); ++i) {
    if (point[i] >= points->size()) throw ResultsFileError("/tenants: point index out of range");
    (*points)[point[i]].tenants.push_back(TenantLatency{tenant[i], measured[i], p99[i]});
  }
}

// Files written before the time series existed have neither series table.
void ReadTimeSeries(const H5::H5File& file, std::vector<PointResult>* points) {
  if (!file.nameExists("timeseries")) return;
  TableReader t(file, "timeseries");
  std::vector<uint64_t> point = t.Integers("point"), arrived = t.Integers("arrived"),
                        completed = t.Integers("completed"), prompt = t.Integers("prompt_tokens"),
                        hit = t.Integers("hit_tokens"), most = t.Integers("max_waiting"),
                        failures = t.Integers("failures"), recoveries = t.Integers("recoveries");
  std::vector<double> start = t.Doubles("start_s"), waiting = t.Doubles("mean_waiting"),
                      kv = t.Doubles("kv_utilization");
  for (size_t i = 0; i < t.rows(); ++i) {
    if (point[i] >= points->size()) throw ResultsFileError("/timeseries: point index out of range");
    (*points)[point[i]].series.push_back(SeriesSample{.start_s = start[i],
                                                      .arrived = arrived[i],
                                                      .completed = completed[i],
                                                      .prompt_tokens = prompt[i],
                                                      .hit_tokens = hit[i],
                                                      .mean_waiting = waiting[i],
                                                      .max_waiting = most[i],
                                                      .kv_utilization = kv[i],
                                                      .failures = failures[i],
                                                      .recoveries = recoveries[i]});
  }
}

void ReadDeploymentSeries(const H5::H5File& file, std::vector<PointResult>* points) {
  if (!file.nameExists("deployment_series")) return;
  TableReader t(file, "deployment_series");
  auto n = [&](const char* c) { return t.Integers(c); };
  std::vector<uint64_t> point = n("point"), deployment = n("deployment"), requests = n("requests"),
                        prompt = n("prompt_tokens"), hit = n("hit_tokens"),
                        elsewhere = n("hit_elsewhere"), taken = n("hit_elsewhere_taken"),
                        cold = n("cold_hit_elsewhere"), cold_taken = n("cold_hit_elsewhere_taken");
  std::vector<std::string> name = t.Strings("deployment_name");
  std::vector<double> start = t.Doubles("start_s");
  for (size_t i = 0; i < t.rows(); ++i) {
    if (point[i] >= points->size() || deployment[i] > 1024) {
      throw ResultsFileError("/deployment_series row " + std::to_string(i) + ": out of range");
    }
    PointResult& p = (*points)[point[i]];
    if (p.deployment_names.size() <= deployment[i]) p.deployment_names.resize(deployment[i] + 1);
    p.deployment_names[deployment[i]] = name[i];
    p.deployment_series.push_back(DeploymentSample{.start_s = start[i],
                                                   .deployment = uint32_t(deployment[i]),
                                                   .requests = requests[i],
                                                   .prompt_tokens = prompt[i],
                                                   .hit_tokens = hit[i],
                                                   .hit_elsewhere = elsewhere[i],
                                                   .hit_elsewhere_taken = taken[i],
                                                   .cold_hit_elsewhere = cold[i],
                                                   .cold_hit_elsewhere_taken = cold_taken[i]});
  }
}

std::vector<CapacityRow> ReadCapacity(const H5::H5File& file) {
  TableReader t(file, "capacity");
  std::vector<std::string> policy = t.Strings("policy");
  std::vector<uint64_t> seed = t.Integers("seed"), slo = t.Integers("slo_index"),
                        left = t.Integers("left_censored"), right = t.Integers("right_censored");
  std::vector<double> qps = t.Doubles("capacity_qps");
  std::vector<CapacityRow> rows(t.rows());
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i] = CapacityRow{policy[i], seed[i], uint32_t(slo[i]),
                          Capacity{qps[i], left[i] != 0, right[i] != 0}};
  }
  return rows;
}

std::vector<SummaryRow> ReadSummary(const H5::H5File& file) {
  TableReader t(file, "summary");
  std::vector<std::string> policy = t.Strings("policy");
  std::vector<uint64_t> slo = t.Integers("slo_index"), seeds = t.Integers("seeds"),
                        left = t.Integers("left_censored_seeds"),
                        right = t.Integers("right_censored_seeds"),
                        ratio_n = t.Integers("ratio_seeds");
  auto d = [&](const char* c) { return t.Doubles(c); };
  std::vector<double> mean = d("capacity_mean_qps"), sd = d("capacity_sd_qps"),
                      low = d("capacity_ci95_low_qps"), high = d("capacity_ci95_high_qps"),
                      reference = d("reference_qps"), hit = d("token_hit_rate_at_reference"),
                      value = d("slo_value_at_reference_s"), r_mean = d("ratio_mean"),
                      r_sd = d("ratio_sd"), r_low = d("ratio_ci95_low"),
                      r_high = d("ratio_ci95_high");
  std::vector<SummaryRow> rows(t.rows());
  for (size_t i = 0; i < rows.size(); ++i) {
    SummaryRow& row = rows[i];
    row.policy = policy[i];
    row.slo_index = uint32_t(slo[i]);
    row.capacity = SeedStatistics{uint32_t(seeds[i]), mean[i], sd[i], low[i], high[i]};
    row.left_censored = uint32_t(left[i]);
    row.right_censored = uint32_t(right[i]);
    row.reference_qps = reference[i];
    row.token_hit_rate = hit[i];
    row.slo_value = value[i];
    row.ratio = SeedStatistics{uint32_t(ratio_n[i]), r_mean[i], r_sd[i], r_low[i], r_high[i]};
  }
  return rows;
}

}  // namespace

StoredResults ReadResultsHdf5(const std::string& path) {
  StoredResults stored;
  try {
    H5::Exception::dontPrint();
    H5::H5File file(path, H5F_ACC_RDONLY);
    H5::Group root = file.openGroup("/");
    FileAttributes& a = stored.attributes;
    a.kvroute_version = ReadStringAttribute(root, "kvroute_version");
    a.scenario_yaml = ReadStringAttribute(root, "scenario_yaml");
    a.command_line = ReadStringAttribute(root, "command_line");
    a.created_utc = ReadStringAttribute(root, "created_utc");
    a.scenario_hash = ReadStringAttribute(root, "scenario_hash");
    SweepResults& r = stored.results;
    r.baseline = ReadStringAttribute(root, "baseline");
    r.slos = ReadSlos(file);
    r.points = ReadPoints(file, r.slos.size());
    ReadReplicaRequests(file, &r.points);
    ReadTenants(file, &r.points);
    ReadTimeSeries(file, &r.points);
    ReadDeploymentSeries(file, &r.points);
    r.capacity = ReadCapacity(file);
    r.summary = ReadSummary(file);
  } catch (const H5::Exception& e) {
    throw ResultsFileError(path + ": not a kvroute results file (" + e.getFuncName() + ": " +
                           e.getDetailMsg() + ")");
  } catch (const ResultsFileError& e) {
    throw ResultsFileError(path + ": " + e.what());
  }
  return stored;
}

}  // namespace kvroute::analysis
