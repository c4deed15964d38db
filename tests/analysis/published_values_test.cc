// Published capacities read for the plots: CSV or YAML, each value checked
// against the results it is drawn beside, errors naming file, line and key.
#include "analysis/published_values.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kvroute::analysis {
namespace {

class PublishedValuesTest : public testing::Test {
 protected:
  void SetUp() override {
    results_.slos = {Slo{}, Slo{}};
    for (const char* policy : {"flat_lb", "cacheroute"}) {
      PointResult p;
      p.policy = policy;
      results_.points.push_back(p);
    }
  }
  std::string Write(const std::string& name, const std::string& text) {
    auto path = std::filesystem::temp_directory_path() /
                ("kvroute_published_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(path) << text;
    paths_.push_back(path);
    return path.string();
  }
  void TearDown() override {
    for (const auto& p : paths_) std::filesystem::remove(p);
  }
  // The error reading `text` as `name`.
  std::string Error(const std::string& name, const std::string& text) {
    try {
      ReadPublishedValues(Write(name, text), results_);
    } catch (const PublishedValuesError& e) {
      return e.what();
    }
    return "(no error)";
  }

  SweepResults results_;
  std::vector<std::filesystem::path> paths_;
};

TEST_F(PublishedValuesTest, CsvAndYamlGiveTheSameValues) {
  std::string csv = Write("a.csv",
                          "# paper Table 3\npolicy,slo,capacity_qps,ci_low_qps,ci_high_qps,source\n"
                          "cacheroute,1,100,90,110,paper\nflat_lb,,70,,,\n");
  std::string yaml =
      Write("a.yaml",
            "- {policy: cacheroute, slo: 1, capacity_qps: 100, ci_low_qps: 90, ci_high_qps: 110, "
            "source: paper}\n- {policy: flat_lb, capacity_qps: 70}\n");
  std::string from_csv = PublishedValuesJson(ReadPublishedValues(csv, results_));
  EXPECT_EQ(from_csv, PublishedValuesJson(ReadPublishedValues(yaml, results_)));
  EXPECT_EQ(from_csv, R"([{"policy":"cacheroute","slo":1,"capacity_qps":100,"ci_low_qps":90,)"
                      R"("ci_high_qps":110,"source":"paper"},{"policy":"flat_lb","slo":0,)"
                      R"("capacity_qps":70,"ci_low_qps":null,"ci_high_qps":null,"source":""}])");
}

TEST_F(PublishedValuesTest, ErrorsNameTheFileLineAndKey) {
  EXPECT_NE(Error("b.csv", "policy,capacity_qps\nsticky,5\n").find(":2: key 'policy': 'sticky'"),
            std::string::npos);
  EXPECT_NE(Error("c.csv", "policy,capacity_qps\nflat_lb,-5\n")
                .find(":2: key 'capacity_qps': expected a number > 0, got '-5'"),
            std::string::npos);
  EXPECT_NE(Error("d.csv", "policy,capacity_qps,slo\nflat_lb,5,2\n").find(":2: key 'slo'"),
            std::string::npos);
  EXPECT_NE(Error("e.csv", "policy,capacity_qps,ci_low_qps\nflat_lb,5,4\n")
                .find("give both ends of the interval"),
            std::string::npos);
  EXPECT_NE(Error("f.csv", "policy,capacity_qps,ci_low_qps,ci_high_qps\nflat_lb,5,6,7\n")
                .find("the interval must hold capacity_qps"),
            std::string::npos);
  EXPECT_NE(Error("g.csv", "policy,capacity_qps\nflat_lb,5\nflat_lb,6\n")
                .find(":3: policy 'flat_lb' and SLO 0 are given twice"),
            std::string::npos);
  EXPECT_NE(Error("h.csv", "policy,capacity_qps\nflat_lb\n").find(":2: 1 cells, the header 2"),
            std::string::npos);
  EXPECT_NE(
      Error("i.yaml", "- {policy: flat_lb, capacity_qps: 5, policy: sticky}\n").find("i.yaml"),
      std::string::npos);
  EXPECT_NE(Error("j.yaml", "- {policy: flat_lb}\n").find(":1: key 'capacity_qps': required"),
            std::string::npos);
  EXPECT_NE(Error("k.csv", "policy,capacity_qps\n").find(": no values"), std::string::npos);
}

}  // namespace
}  // namespace kvroute::analysis
