// Point records, the partial file a sweep appends to, and reading a results
// file back: each must give back exactly what was written.
#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "analysis/atomic_file.h"
#include "analysis/hdf5_reader.h"
#include "analysis/hdf5_writer.h"
#include "analysis/partial_file.h"
#include "analysis/point_codec.h"
#include "analysis/table.h"

namespace kvroute::analysis {
namespace {

PointResult FullPoint() {
  PointResult p;
  p.policy = "cache route";  // a space survives
  p.qps = 87.5;
  p.seed = 3;
  p.refinement_round = 2;
  p.offered = 20, p.completed = 9, p.unfinished = 1, p.rejected = 2, p.failed = 3;
  p.retried = 4, p.measured = 8;
  p.ttft = {0.1, 0.2, std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity(), 0.15};
  p.tpot = {0.01, 0.02, 0.03, 0.04, std::nan("")};
  p.e2e = {1, 2, 3, 4, 2.5};
  p.slo_values = {0.3, -0.0};
  p.token_hit_rate = 1.0 / 3, p.request_hit_rate = 0.7;
  p.prefill_tokens_computed = 123456789012ULL, p.cache_evictions = 5, p.preemptions = 6;
  p.replica_failures = 7, p.mean_in_system = 12.25, p.mean_held_kv_blocks = 99.5;
  p.replica_requests = {4, 0, 5};
  p.imbalance = 1.25;
  p.tenants = {{"0", 5, 0.2}, {"other", 3, std::numeric_limits<double>::infinity()}};
  p.tenant_fairness = 0.875;
  p.policy_stats = {{"plan_admitted_keys", 17}, {"plan_rebuilds", 2}};
  p.simulated_s = 300.125;
  p.events = 424242;
  p.deployment_names = {"old", "new"};
  DeploymentSample sample;
  sample.start_s = 10, sample.deployment = 1, sample.requests = 7, sample.prompt_tokens = 700;
  sample.hit_tokens = 300, sample.hit_elsewhere = 2, sample.hit_elsewhere_taken = 1;
  sample.cold_hit_elsewhere = 1, sample.cold_hit_elsewhere_taken = 0;
  DeploymentSample old_sample;  // every deployment has a row in every bucket
  old_sample.start_s = 10, old_sample.requests = 3, old_sample.prompt_tokens = 300;
  p.deployment_series = {old_sample, sample};
  SeriesSample bucket;
  bucket.start_s = 10, bucket.arrived = 20, bucket.completed = 9, bucket.prompt_tokens = 900;
  bucket.hit_tokens = 450, bucket.mean_waiting = 0.3, bucket.max_waiting = 4;
  bucket.kv_utilization = 0.625, bucket.failures = 1, bucket.recoveries = 0;
  SeriesSample unobserved;  // a bucket the run ended before reading
  unobserved.start_s = 20, unobserved.mean_waiting = std::nan("");
  unobserved.kv_utilization = std::nan("");
  p.series = {bucket, unobserved};
  p.fleet_changes = {{.at_s = 0, .deployment = 1, .requested = 2, .serving = 2, .billed = 2},
                     {.at_s = 30.5, .deployment = 1, .requested = 3, .serving = 2, .billed = 3}};
  return p;
}

TEST(PointCodecTest, RoundTripsEveryFieldToTheBit) {
  PointResult p = FullPoint();
  std::string record = EncodePoint(p);
  PointResult q = DecodePoint(record);
  EXPECT_EQ(EncodePoint(q), record);
  EXPECT_EQ(q.policy, p.policy);
  EXPECT_EQ(q.refinement_round, 2u);
  EXPECT_TRUE(std::isinf(q.ttft.p99));
  EXPECT_TRUE(std::isnan(q.tpot.mean));
  EXPECT_TRUE(std::signbit(q.slo_values[1]));
  EXPECT_EQ(q.token_hit_rate, 1.0 / 3);
  EXPECT_EQ(q.prefill_tokens_computed, 123456789012ULL);
  EXPECT_EQ(q.replica_requests, p.replica_requests);
  ASSERT_EQ(q.tenants.size(), 2u);
  EXPECT_EQ(q.tenants[1].tenant, "other");
  EXPECT_EQ(q.policy_stats, p.policy_stats);
  EXPECT_EQ(q.simulated_s, 300.125);
  EXPECT_EQ(q.events, 424242u);
  EXPECT_EQ(q.deployment_names, p.deployment_names);
  ASSERT_EQ(q.deployment_series.size(), 2u);
  EXPECT_EQ(q.deployment_series[1].hit_tokens, 300u);
  EXPECT_EQ(q.deployment_series[1].deployment, 1u);
  ASSERT_EQ(q.fleet_changes.size(), 2u);
  EXPECT_EQ(q.fleet_changes[1].at_s, 30.5);
  EXPECT_EQ(q.fleet_changes[1].requested, 3u);
  EXPECT_EQ(q.fleet_changes[1].serving, 2u);
  ASSERT_EQ(q.series.size(), 2u);
  EXPECT_EQ(q.series[0].max_waiting, 4u);
  EXPECT_EQ(q.series[0].mean_waiting, 0.3);
  EXPECT_TRUE(std::isnan(q.series[1].kv_utilization));
}

// The fuzzer's seeds are real records of the current layout: a change of the
// point fields changes the records' magic, and the corpus must follow.
TEST(PointCodecTest, TheFuzzCorpusRecordsDecode) {
  size_t records = 0;
  for (const auto& entry : std::filesystem::directory_iterator("fuzz/corpus/point_codec")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string record((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NO_THROW(DecodePoint(record))
        << entry.path() << ": regenerate with fuzz/make_codec_corpus.sh build/release/kvroute";
    ++records;
  }
  EXPECT_GE(records, 2u);
}

TEST(PointCodecTest, RefusesADamagedRecord) {
  std::string record = EncodePoint(FullPoint());
  EXPECT_THROW(DecodePoint(record.substr(0, record.size() / 2)), PointCodecError);
  EXPECT_THROW(DecodePoint("not a record"), PointCodecError);
  EXPECT_THROW(DecodePoint(record + "1 "), PointCodecError);
}

std::string ResultsTempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name))
      .string();
}

// What FullPoint's scenario promises: 2 SLOs, 3 replicas, 2 deployments.
PointExpectations Expected() {
  PointExpectations e;
  e.slos = 2;
  e.replicas = 3;
  e.deployments = 2;
  e.policies = {"cache route"};
  e.duration_s = 300;
  e.drain_s = 60;
  e.series_interval_s = 10;
  return e;
}

TEST(PartialFileTest, ResumeGivesBackTheAppendedPoints) {
  std::string path = ResultsTempPath("kvroute_partial_test.h5.partial");
  {
    PartialFile file = PartialFile::Create(path, "00000000000000aa", "name: x\n");
    PointResult p = FullPoint();
    file.Append(p);
    p.seed = 4;
    file.Append(p);
  }
  std::vector<PointResult> points;
  PartialFile file = PartialFile::Resume(path, "00000000000000aa", Expected(), &points);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(EncodePoint(points[0]), EncodePoint(FullPoint()));
  EXPECT_EQ(points[1].seed, 4u);
  EXPECT_EQ(file.size(), 2u);
  file.Append(FullPoint());
  EXPECT_EQ(file.size(), 3u);
  file.Remove();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(PartialFileTest, RefusesAnotherScenarioAndLeavesTheFile) {
  std::string path = ResultsTempPath("kvroute_partial_other.h5.partial");
  { PartialFile::Create(path, "00000000000000aa", "name: x\n").Append(FullPoint()); }
  std::vector<PointResult> points;
  try {
    PartialFile::Resume(path, "00000000000000bb", Expected(), &points);
    FAIL() << "resumed another scenario's file";
  } catch (const PartialFileError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("different scenario"), std::string::npos);
  }
  EXPECT_TRUE(points.empty());
  std::vector<PointResult> again;
  PartialFile::Resume(path, "00000000000000aa", Expected(), &again).Remove();
  EXPECT_EQ(again.size(), 1u);
}

SweepResults SampleResults() {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 2.0}, Slo{LatencyMetric::kE2e, 90, 30}};
  r.baseline = "flat_lb";
  for (const char* policy : {"flat_lb", "cacheroute"}) {
    for (double qps : {10.0, 20.0, 30.0}) {
      for (uint64_t seed : {1, 2, 3}) {
        PointResult p = FullPoint();
        p.policy = policy;
        p.qps = qps;
        p.seed = seed;
        p.refinement_round = 0;
        p.slo_values = {qps / (std::string(policy) == "flat_lb" ? 12.0 : 8.0) + seed * 0.1, qps};
        if (std::string(policy) == "flat_lb") p.policy_stats.clear();
        r.points.push_back(p);
      }
    }
  }
  ComputeCapacityAndSummary(20, 0, &r);
  return r;
}

TEST(ResultsFileTest, ReadingBackPrintsTheSameTables) {
  std::string path = ResultsTempPath("kvroute_reader_test.h5");
  SweepResults written = SampleResults();
  Provenance provenance{.kvroute_version = "0.1.0",
                        .git_revision = "abc",
                        .command_line = "kvroute run x",
                        .working_directory = "/tmp",
                        .created_utc = "2026-01-01T00:00:00Z",
                        .scenario_hash = "ab12",
                        .scenario_yaml = "name: x\n",
                        .resolved_scenario_yaml = "name: x\n"};
  WriteResultsHdf5(path, provenance, written);
  StoredResults read = ReadResultsHdf5(path);
  EXPECT_EQ(read.provenance.scenario_hash, "ab12");
  EXPECT_EQ(read.provenance.command_line, "kvroute run x");
  EXPECT_EQ(read.results.baseline, "flat_lb");
  std::ostringstream a, b;
  PrintSummaryTables(written, a);
  PrintSummaryTables(read.results, b);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_NE(a.str().find("vs flat_lb"), std::string::npos);
  EXPECT_NE(a.str().find("fairness"), std::string::npos);
  ASSERT_EQ(read.results.points.size(), written.points.size());
  for (size_t i = 0; i < written.points.size(); ++i) {
    // Both time series come back to the bit.
    EXPECT_EQ(EncodePoint(read.results.points[i]), EncodePoint(written.points[i])) << i;
  }
  std::filesystem::remove(path);
}

TEST(ResultsFileTest, ANonResultsFileIsAnErrorNamingIt) {
  std::string path = ResultsTempPath("kvroute_not_results.h5");
  { PartialFile::Create(path, "aa", "name: x\n"); }
  try {
    ReadResultsHdf5(path);
    FAIL();
  } catch (const ResultsFileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(BaselineRatioTest, PairedBySeedThenSummarised) {
  SweepResults r = SampleResults();
  for (const SummaryRow& row : r.summary) {
    if (row.policy == "flat_lb" && row.slo_index == 0) {
      EXPECT_EQ(row.ratio.mean, 1.0);
      EXPECT_EQ(row.ratio.sd, 0.0);
    }
    // SLO 1 (<= 30 s) passes every load: censored capacities have no ratio.
    if (row.slo_index == 1) {
      EXPECT_EQ(row.ratio.n, 0u) << row.policy;
    }
  }
  // SLO 0 (<= 2 s): flat_lb (qps/12 + seed/10) passes 10 and 20 at every
  // seed, cacheroute (qps/8 + seed/10) only 10: a ratio of 0.5 at each seed.
  const SummaryRow& cacheroute = r.summary[1];
  ASSERT_EQ(cacheroute.policy, "cacheroute");
  EXPECT_EQ(cacheroute.ratio.n, 3u);
  EXPECT_DOUBLE_EQ(cacheroute.ratio.mean, 0.5);
}

// Appends `record` as it is to the partial file at `path`, as a damaged or
// forged file would hold it.
void AppendRaw(const std::string& path, const std::string& record) {
  H5::H5File file(path, H5F_ACC_RDWR);
  H5::DataSet dataset = file.openDataSet("point_records");
  hsize_t rows = static_cast<hsize_t>(dataset.getSpace().getSimpleExtentNpoints());
  hsize_t size[1] = {rows + 1};
  dataset.extend(size);
  H5::DataSpace space = dataset.getSpace();
  hsize_t start[1] = {rows}, count[1] = {1};
  space.selectHyperslab(H5S_SELECT_SET, count, start);
  H5::DataSpace memory(1, count);
  const char* data[1] = {record.c_str()};
  dataset.write(data, H5::StrType(H5::PredType::C_S1, H5T_VARIABLE), memory, space);
}

// Resumes a partial file holding a good point and then `bad`; expects the
// refusal to name record 1 and `problem`, and the file to be left as it was.
void ExpectRefused(const std::string& bad, const std::string& problem) {
  std::string path = ResultsTempPath("kvroute_refused.h5.partial");
  { PartialFile::Create(path, "00000000000000aa", "name: x\n").Append(FullPoint()); }
  AppendRaw(path, bad);
  auto size = std::filesystem::file_size(path);
  std::vector<PointResult> points;
  try {
    PartialFile::Resume(path, "00000000000000aa", Expected(), &points);
    ADD_FAILURE() << "accepted a partial file with: " << problem;
  } catch (const PartialFileError& e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": record 1", 0), 0u) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
    EXPECT_NE(message.find("delete it"), std::string::npos) << message;
  }
  EXPECT_TRUE(points.empty());
  EXPECT_EQ(std::filesystem::file_size(path), size);
  std::filesystem::remove(path);
}

TEST(ResumeCheckTest, ARecordWithoutSloValuesIsRefusedNotACrash) {
  PointResult p = FullPoint();
  p.slo_values.clear();
  ExpectRefused(EncodePoint(p), "has 0 SLO values, expected 2");
}

TEST(ResumeCheckTest, AnImplausibleOfferedCountIsRefused) {
  PointResult p = FullPoint();
  p.offered = 1'000'000'000'000;
  p.series[0].arrived = p.offered;
  ExpectRefused(EncodePoint(p), "offered (1000000000000) is implausible");
}

TEST(ResumeCheckTest, CountsThatDoNotConserveAreRefused) {
  PointResult p = FullPoint();
  p.completed = 30;
  ExpectRefused(EncodePoint(p), "exceeds offered (20)");
  p = FullPoint();
  p.tenants[0].measured = 6;
  ExpectRefused(EncodePoint(p), "the tenants' measured requests (9) differ from measured (8)");
}

TEST(ResumeCheckTest, OutOfRangeFieldsAreRefusedByName) {
  PointResult p = FullPoint();
  p.token_hit_rate = 1.5;
  ExpectRefused(EncodePoint(p), "field 'token_hit_rate' is 1.5");
  p = FullPoint();
  p.qps = -1;
  ExpectRefused(EncodePoint(p), "field 'qps' is -1");
  p = FullPoint();
  p.policy = "other";
  ExpectRefused(EncodePoint(p), "policy 'other', which the scenario lacks");
}

TEST(ResumeCheckTest, ImpossibleFleetChangesAreRefused) {
  PointResult p = FullPoint();
  p.fleet_changes[0].at_s = 40;
  ExpectRefused(EncodePoint(p), "fleet_changes row 1 is out of time order");
  p = FullPoint();
  p.fleet_changes[1].serving = 4;
  ExpectRefused(EncodePoint(p), "fleet_changes row 1 has more replicas serving than requested");
  p = FullPoint();
  p.fleet_changes[0].deployment = 2;
  ExpectRefused(EncodePoint(p), "fleet_changes row 0 names deployment 2, the scenario has 2");
}

TEST(ResumeCheckTest, DamagedAndRepeatedRecordsAreRefused) {
  std::string record = EncodePoint(FullPoint());
  ExpectRefused(record.substr(0, record.size() / 2), "not a kvroute point record");
  ExpectRefused(record, "repeats an earlier record's point");
  ExpectRefused("", "not a kvroute point record");
}

// A results file whose tables disagree is refused with the table and row.
TEST(ResultsFileTest, TablesThatDisagreeAreRefused) {
  auto refused = [](SweepResults r, const std::string& problem) {
    std::string path = ResultsTempPath("kvroute_disagree.h5");
    std::string image = ResultsHdf5Image(Provenance{}, r);
    std::ofstream(path, std::ios::binary) << image;
    try {
      ReadResultsHdf5(path);
      ADD_FAILURE() << "read a file where " << problem;
    } catch (const ResultsFileError& e) {
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
  };
  SweepResults r = SampleResults();
  r.summary[0].policy = "ghost";
  refused(r, "/summary row 0 names policy 'ghost', which /points lacks");
  r = SampleResults();
  r.summary.pop_back();
  refused(r, "/summary has 3 (policy, SLO) rows for 2 policies of /points and 2 SLOs");
  r = SampleResults();
  r.capacity[2].seed = 99;
  refused(r, "/capacity row 2 is of policy 'flat_lb' at seed 99, which /points lacks");
  r = SampleResults();
  r.baseline = "ghost";
  refused(r, "the baseline 'ghost' is not a policy of /points");
  r = SampleResults();
  r.points[4].completed = 1000;
  refused(r, "/points row 4: completed + unfinished + rejected + failed");
}

// The writer reads its file back before it replaces anything: a file that
// would not read back is refused and the old one kept.
TEST(ResultsFileTest, AFileThatWouldNotReadBackIsNeverWritten) {
  std::string path = ResultsTempPath("kvroute_refused_write.h5");
  std::ofstream(path) << "the previous results";
  SweepResults r = SampleResults();
  r.summary[0].policy = "ghost";
  EXPECT_THROW(WriteResultsHdf5(path, Provenance{}, r), OutputFileError);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "the previous results");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kvroute::analysis
