// What kvroute prints and writes for a sweep: the JSON of a point, the text
// tables, and the HDF5 file, each checked against the field tables.
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/hdf5_reader.h"
#include "analysis/hdf5_writer.h"
#include "analysis/json_writer.h"
#include "analysis/point_fields.h"
#include "analysis/sweep_fields.h"
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
        p.measured = 100;
        p.slo_values = {std::string(policy) == "cacheroute" ? 5 : qps / 10, qps};
        p.token_hit_rate = 0.5;
        p.replica_requests = {40, 60};
        p.imbalance = 1.2;
        p.tenants = {{"0", 70, 0.5}, {"other", 30, 0.25}};
        if (std::string(policy) == "cacheroute") p.policy_stats = {{"plan_admitted_keys", 7}};
        r.points.push_back(p);
      }
    }
  }
  ComputeCapacityAndSummary(10, 0, &r);
  return r;
}

Provenance SampleProvenance(std::string scenario = "name: x\n") {
  return Provenance{.kvroute_version = "0.1.0",
                    .git_revision = "abc",
                    .command_line = "kvroute run x.yaml --set 'a=[1, 2]'",
                    .working_directory = "/tmp",
                    .created_utc = "2026-01-01T00:00:00Z",
                    .scenario_hash = "0123456789abcdef",
                    .scenario_yaml = scenario,
                    .resolved_scenario_yaml = "name: \"x\"\n"};
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid())))
      .string();
}

TEST(JsonTest, NumbersAreValidJsonAndUnboundedOnesAreFlagged) {
  SweepResults r = Sample();
  r.points[0].ttft.p99 = std::numeric_limits<double>::infinity();
  r.points[0].slo_values[0] = std::numeric_limits<double>::infinity();
  r.points[0].tpot.p50 = std::nan("");
  std::string json = PointToJson(r.points[0], r.slos);
  EXPECT_TRUE(std::regex_search(json, std::regex(R"(^\{"policy":"flat_lb","qps":10,"seed":1,)")));
  for (const char* never : {"\"inf\"", "Infinity", "NaN", ":nan", ":inf"}) {
    EXPECT_EQ(json.find(never), std::string::npos) << never << " in " << json;
  }
  EXPECT_NE(json.find(R"("ttft_p99_s":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("tpot_p50_s":null)"), std::string::npos);
  EXPECT_NE(json.find(R"("unbounded":["ttft_p99_s","slo0_value_s"]})"), std::string::npos)
      << json;  // the point's own list closes the object; NaN is not unbounded
  EXPECT_NE(json.find(R"({"index":0,"label":"p99 ttft <= 2s","value_s":null,"met":false,)"
                      R"("unbounded":["value_s"]})"),
            std::string::npos);
  EXPECT_NE(json.find(R"({"index":1,"label":"p90 e2e <= 30s","value_s":10,"met":true,)"
                      R"("unbounded":[]})"),
            std::string::npos);
  EXPECT_NE(json.find(R"("replica_requests":[40,60])"), std::string::npos);
  EXPECT_EQ(json.back(), '}');
}

// "\"name\":" (built piecewise: GCC 12 warns falsely, -Wrestrict, on a + chain).
std::string Key(std::string_view name, std::string_view after = ":") {
  std::string key = "\"";
  key += name;
  key += "\"";
  key += after;
  return key;
}

TEST(JsonTest, EveryFieldOfTheTablesIsAKey) {
  SweepResults r = Sample();
  PointResult p = r.points[0];
  p.series.resize(1);
  p.deployment_names = {"a"};
  p.deployment_series.resize(1);
  p.fleet_changes.resize(1);
  std::string json = PointToJson(p, r.slos);
  for (const PointField& f : PointScalars().fields) {
    EXPECT_NE(json.find(Key(f.name)), std::string::npos) << f.name;
  }
  for (const PointTable& table : PointRowTables()) {
    EXPECT_NE(json.find(Key(table.name, ":[{")), std::string::npos) << table.name;
    for (const PointField& f : table.fields) {
      EXPECT_NE(json.find(Key(f.name)), std::string::npos) << f.name;
    }
  }
  EXPECT_NE(json.find(R"("slo1_value_s":10)"), std::string::npos);
}

// The JSON must parse with a parser that refuses NaN and Infinity.
TEST(JsonTest, AStrictParserReadsIt) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  SweepResults r = Sample();
  r.points[0].ttft.max = std::numeric_limits<double>::infinity();
  r.points[0].e2e.mean = std::nan("");
  r.points[0].policy = "quote \" and \\ and \t";
  std::string path = TempPath("kvroute_strict.json");
  std::ofstream(path) << PointToJson(r.points[0], r.slos);
  std::string command =
      "/usr/bin/python3 -c 'import json,sys\n"
      "def refuse(c): raise ValueError(c)\n"
      "d = json.loads(open(sys.argv[1]).read(), parse_constant=refuse)\n"
      "assert d[\"ttft_max_s\"] is None and \"ttft_max_s\" in d[\"unbounded\"]\n"
      "assert d[\"policy\"] == \"quote \\\" and \\\\ and \\t\"' " +
      path;
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::filesystem::remove(path);
}

TEST(TableTest, CensoredCapacitiesShowTheirBoundAndAreNotAveraged) {
  std::ostringstream out;
  PrintSummaryTables(Sample(), out);
  std::string text = out.str();
  EXPECT_NE(text.find("SLO p99 ttft <= 2s"), std::string::npos);
  EXPECT_NE(text.find("SLO p90 e2e <= 30s"), std::string::npos);
  // flat_lb passes both loads at both seeds: at least 20; cacheroute neither.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(flat_lb +≥ 20 +2 seeds ≥ 20 +50\.0%)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(cacheroute +< 10 +2 seeds < 10 )"))) << text;
}

TEST(TableTest, AGridQuantisedCapacityIsAnInterval) {
  SweepResults r = Sample();
  for (PointResult& p : r.points) {
    if (p.policy == "flat_lb" && p.qps == 20) p.slo_values[0] = 9;  // fails 20 only
  }
  ComputeCapacityAndSummary(10, 0, &r);
  std::ostringstream text;
  PrintSummaryTables(r, text);
  EXPECT_TRUE(std::regex_search(text.str(), std::regex(R"(flat_lb +\[10, 20\) +none)")))
      << text.str();
  ComputeCapacityAndSummary(10, 10, &r);  // bisected to 10 QPS: resolved
  std::ostringstream resolved;
  PrintSummaryTables(r, resolved);
  EXPECT_TRUE(std::regex_search(resolved.str(), std::regex(R"(flat_lb +10\.0 \[10\.0, 10\.0\])")))
      << resolved.str();
}

TEST(Hdf5Test, WritesEveryFieldOfTheTablesAndTheProvenance) {
  std::string path = TempPath("kvroute_output_test.h5");
  SweepResults r = Sample();
  WriteResultsHdf5(path, SampleProvenance(), r);
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    EXPECT_EQ(entry.path().string().find(path + ".tmp"), std::string::npos) << entry.path();
  }
  H5::H5File file(path, H5F_ACC_RDONLY);
  EXPECT_EQ(file.openDataSet("points").getSpace().getSimpleExtentNpoints(), 8);
  EXPECT_EQ(file.openDataSet("capacity").getSpace().getSimpleExtentNpoints(), 8);
  EXPECT_EQ(file.openDataSet("summary").getSpace().getSimpleExtentNpoints(), 4);
  EXPECT_EQ(file.openDataSet("slos").getSpace().getSimpleExtentNpoints(), 2);
  EXPECT_EQ(file.openDataSet("replica_requests").getSpace().getSimpleExtentNpoints(), 16);
  EXPECT_EQ(file.openDataSet("tenants").getSpace().getSimpleExtentNpoints(), 16);
  H5::CompType points = file.openDataSet("points").getCompType();
  for (const PointField& f : PointScalars().fields) {
    EXPECT_GE(points.getMemberIndex(std::string(f.name)), 0) << f.name;
  }
  for (const char* column : {"slo0_value_s", "slo1_value_s", "plan_admitted_keys"}) {
    EXPECT_GE(points.getMemberIndex(column), 0) << column;
  }
  for (const PointTable& table : PointRowTables()) {
    H5::CompType columns = file.openDataSet(std::string(table.name)).getCompType();
    for (const PointField& f : table.fields) {
      EXPECT_GE(columns.getMemberIndex(std::string(f.name)), 0) << table.name << " " << f.name;
    }
  }
  H5::CompType summary = file.openDataSet("summary").getCompType();
  for (const auto& f : SummaryTable().fields) {
    EXPECT_GE(summary.getMemberIndex(std::string(f.name)), 0) << f.name;
  }
  StoredResults back = ReadResultsHdf5(path);
  EXPECT_EQ(back.provenance.command_line, "kvroute run x.yaml --set 'a=[1, 2]'");
  EXPECT_EQ(back.provenance.git_revision, "abc");
  EXPECT_EQ(back.provenance.resolved_scenario_yaml, "name: \"x\"\n");
  H5::CompType qps_only(sizeof(double));
  qps_only.insertMember("qps", 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> qps(8);
  file.openDataSet("points").read(qps.data(), qps_only);
  EXPECT_EQ(qps, (std::vector<double>{10, 10, 20, 20, 10, 10, 20, 20}));
  file.close();
  std::filesystem::remove(path);
}

// A scenario text above HDF5's 64 KiB attribute limit (a long failure
// schedule) is stored and read back whole.
TEST(Hdf5Test, AScenarioLargerThan64KiBIsStored) {
  std::string path = TempPath("kvroute_large_scenario.h5");
  std::string scenario = "name: big\n";
  while (scenario.size() < 200'000) scenario += "# a long failure schedule, line after line\n";
  WriteResultsHdf5(path, SampleProvenance(scenario), Sample());
  EXPECT_EQ(ReadResultsHdf5(path).provenance.scenario_yaml, scenario);
  std::filesystem::remove(path);
}

TEST(Hdf5Test, AnUnwritablePathFailsNamingIt) {
  try {
    WriteResultsHdf5("/nonexistent-dir/x.h5", SampleProvenance(), Sample());
    FAIL();
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
  }
}

TEST(FieldTableTest, EveryFieldHasANameAndADescriptionAndNamesAreUnique) {
  auto check = [](const auto& table) {
    std::set<std::string_view> names;
    for (const auto& f : table.fields) {
      EXPECT_FALSE(f.name.empty()) << table.name;
      EXPECT_FALSE(f.description.empty()) << f.name;
      EXPECT_TRUE(names.insert(f.name).second) << table.name << ": " << f.name << " twice";
      const bool getter = f.type == FieldType::kText    ? f.text != nullptr
                          : f.type == FieldType::kCount ? f.count != nullptr
                                                        : f.real != nullptr;
      EXPECT_TRUE(getter) << f.name;
    }
  };
  check(PointScalars());
  for (const PointTable& t : PointRowTables()) check(t);
  check(CapacityTable());
  check(SummaryTable());
  check(SloTable());
}

}  // namespace
}  // namespace kvroute::analysis
