#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "analysis/hdf5_writer.h"
#include "analysis/json_writer.h"
#include "analysis/table.h"

namespace kvroute::analysis {
namespace {

SweepResults Sample() {
  SweepResults r;
  r.slos = {Slo{LatencyMetric::kTtft, 99, 2.0}, Slo{LatencyMetric::kE2e, 90, 30}};
  for (const char* policy : {"flat_lb", "cacheroute"}) {
    for (double qps : {10.0, 20.0}) {
      for (uint64_t seed : {1, 2}) {
        PointResult p;
        p.policy = policy;
        p.qps = qps;
        p.seed = seed;
        p.offered = 100;
        p.completed = 100;
        p.slo_values = {std::string(policy) == "cacheroute" ? 5 : qps / 10, qps};
        p.token_hit_rate = 0.5;
        p.replica_requests = {40, 60};
        p.imbalance = 1.2;
        if (std::string(policy) == "cacheroute") p.policy_stats = {{"plan_admitted_keys", 7}};
        r.points.push_back(p);
      }
    }
  }
  ComputeCapacityAndSummary(10, &r);
  return r;
}

TEST(JsonTest, PointHasEveryMetricWithTheRightShape) {
  SweepResults r = Sample();
  r.points[0].ttft.p99 = std::numeric_limits<double>::infinity();
  r.points[0].tpot.p50 = std::nan("");
  std::string json = PointToJson(r.points[0], r.slos);
  EXPECT_TRUE(std::regex_search(json, std::regex(R"(^\{"policy":"flat_lb","qps":10,"seed":1,)")));
  EXPECT_NE(json.find(R"("p99_s":"inf")"), std::string::npos);
  EXPECT_NE(json.find(R"("p50_s":null)"), std::string::npos);
  EXPECT_NE(json.find(R"({"label":"p99 ttft <= 2s","value_s":1,"met":true})"), std::string::npos);
  EXPECT_NE(json.find(R"("replica_requests":[40,60])"), std::string::npos);
  for (const char* key :
       {"\"failed\":", "\"retried\":", "\"preemptions\":", "\"mean_in_system\":", "\"events\":"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  EXPECT_EQ(json.back(), '}');
}

TEST(TableTest, OneTablePerSloWithEveryPolicy) {
  std::ostringstream out;
  PrintSummaryTables(Sample(), out);
  std::string text = out.str();
  EXPECT_NE(text.find("SLO p99 ttft <= 2s"), std::string::npos);
  EXPECT_NE(text.find("SLO p90 e2e <= 30s"), std::string::npos);
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(flat_lb +20\.0 \[20\.0, 20\.0\] +2 above grid +50\.0%)")));
  EXPECT_TRUE(
      std::regex_search(text, std::regex(R"(cacheroute +0\.0 \[0\.0, 0\.0\] +2 below grid)")));
}

TEST(Hdf5Test, WritesEveryTableAndTheAttributes) {
  std::string path = (std::filesystem::temp_directory_path() / "kvroute_output_test.h5").string();
  SweepResults r = Sample();
  WriteResultsHdf5(
      path,
      {"0.1.0", "name: x\n", "kvroute run x.yaml", "2026-01-01T00:00:00Z", "0123456789abcdef"}, r);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  H5::H5File file(path, H5F_ACC_RDONLY);
  EXPECT_EQ(file.openDataSet("points").getSpace().getSimpleExtentNpoints(), 8);
  EXPECT_EQ(file.openDataSet("capacity").getSpace().getSimpleExtentNpoints(),
            8);  // 2 policies x 2 seeds x 2 SLOs
  EXPECT_EQ(file.openDataSet("summary").getSpace().getSimpleExtentNpoints(), 4);
  EXPECT_EQ(file.openDataSet("slos").getSpace().getSimpleExtentNpoints(), 2);
  EXPECT_EQ(file.openDataSet("replica_requests").getSpace().getSimpleExtentNpoints(), 16);
  H5::CompType points = file.openDataSet("points").getCompType();
  for (const char* column : {"policy",
                             "qps",
                             "seed",
                             "offered",
                             "completed",
                             "unfinished",
                             "rejected",
                             "failed",
                             "retried",
                             "measured",
                             "ttft_p99_s",
                             "tpot_p50_s",
                             "e2e_max_s",
                             "token_hit_rate",
                             "request_hit_rate",
                             "prefill_tokens_computed",
                             "cache_evictions",
                             "preemptions",
                             "replica_failures",
                             "mean_in_system",
                             "mean_held_kv_blocks",
                             "imbalance",
                             "simulated_s",
                             "events",
                             "slo0_value_s",
                             "slo1_value_s",
                             "plan_admitted_keys"}) {
    EXPECT_GE(points.getMemberIndex(column), 0) << column;
  }
  H5::Attribute attribute = file.openGroup("/").openAttribute("command_line");
  std::string command;
  attribute.read(attribute.getStrType(), command);
  EXPECT_EQ(command, "kvroute run x.yaml");
  // Read a column back.
  H5::CompType qps_only(sizeof(double));
  qps_only.insertMember("qps", 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> qps(8);
  file.openDataSet("points").read(qps.data(), qps_only);
  EXPECT_EQ(qps, (std::vector<double>{10, 10, 20, 20, 10, 10, 20, 20}));
  file.close();
  std::filesystem::remove(path);
}

TEST(Hdf5Test, UnwritablePathFailsCleanly) {
  EXPECT_THROW(WriteResultsHdf5("/nonexistent-dir/x.h5", {}, Sample()), std::runtime_error);
}

}  // namespace
}  // namespace kvroute::analysis
