// workload.clients end to end (docs/WORKLOADS.md, "Per-client arrivals
// (ServeGen)"): the shipped scenario and its ServeGen extract load and run,
// the keys read into the configuration they name, and the load stages the
// clients cannot go with are refused. Malformed clients are in the catalogue
// (tests/e2e/catalogue_clients_cases.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "models/workload.h"
#include "sim/runner/arrival_driver.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

const char kFile[] = "scenarios/data/servegen_m_large_day0_top16.csv";

TEST(ClientsScenarioTest, TheShippedExtractIsTheTopSixteenOfDayZero) {
  const Scenario s = LoadScenarioFile("scenarios/servegen_clients.yaml");
  const models::ClientsConfig& c = s.workload.clients;
  ASSERT_TRUE(c.enabled());
  EXPECT_TRUE(c.file.ends_with(kFile)) << c.file;
  EXPECT_EQ(c.table->clients.size(), 16u);
  EXPECT_EQ(c.table->clients[0].id, 142u);  // the busiest client of day 0
  EXPECT_EQ(c.table->window_s, 600);
  EXPECT_EQ(c.table->windows, 144u);  // 24 hours
  EXPECT_EQ(c.start_s, 43200);
  EXPECT_EQ(c.aggregate, models::ClientsConfig::Aggregate::kConstant);
  EXPECT_EQ(c.keys_per_client, 4u);
  EXPECT_EQ(s.workload.keys, 64u);
}

TEST(ClientsScenarioTest, APointRunsWithEveryClientATenant) {
  const Scenario s = LoadScenarioFile("scenarios/servegen_clients.yaml",
                                      {"duration_s=300", "warmup_s=0", "drain_s=60"});
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 20, 1});
  EXPECT_NEAR(static_cast<double>(r.completed), 20 * 300, 5 * 1.5 * std::sqrt(6000.0));
  ASSERT_FALSE(r.tenants.empty());
  EXPECT_EQ(r.tenants[0].tenant, "0");  // client 142, the busiest at noon too
}

TEST(ClientsScenarioTest, TracedKeepsTheDaysShape) {
  // Over 04:00-16:00 the clients' total rises from about 180 to about 300
  // requests/s (mean about 240): traced, the load starts below the mean and
  // ends above it; constant, it is the mean throughout.
  auto load_at = [](const std::string& aggregate, double t) {
    const Scenario s = LoadScenarioFile("scenarios/servegen_clients.yaml",
                                        {"duration_s=43200", "workload.clients.start_s=14400",
                                         "workload.clients.aggregate=" + aggregate});
    models::WorkloadGenerator g(s.workload, 1, 10, FromSeconds(s.duration_s));
    std::vector<double> load;
    g.KeyLoadAt(FromSeconds(t), &load);
    double total = 0;
    for (double l : load) total += l;
    return total;
  };
  EXPECT_NEAR(load_at("constant", 100), 1, 1e-9);
  EXPECT_NEAR(load_at("constant", 40000), 1, 1e-9);
  EXPECT_LT(load_at("traced", 100), 0.85);
  EXPECT_GT(load_at("traced", 40000), 1.1);
}

TEST(ClientsScenarioTest, LoadStagesAreRefused) {
  Scenario s = LoadScenarioFile("scenarios/servegen_clients.yaml");
  s.workload.stages.push_back({10, 60, 0});
  try {
    ArrivalDriver driver(s.workload, 1, 10, FromSeconds(60));
    ADD_FAILURE() << "clients with load stages were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("workload.clients"), std::string::npos) << e.what();
  }
}

TEST(ClientsScenarioTest, TheFileIsRelativeToTheScenario) {
  const TestDirectory dir("clients");
  dir.Write("c.csv",
            "client,window_start_s,rate,cv,pattern,shape,scale\n"
            "1,0,1,1,Gamma,1,1\n1,30,2,1,Gamma,1,1\n");
  TestScenario t;
  t.workload = "  clients: {file: c.csv, aggregate: traced, keys_per_client: 3}\n";
  t.duration_s = 60;
  const Scenario s = dir.Load(ScenarioText(t));
  EXPECT_EQ(s.workload.clients.file, (dir.path() / "c.csv").string());
  EXPECT_EQ(s.workload.clients.aggregate, models::ClientsConfig::Aggregate::kTraced);
  EXPECT_EQ(s.workload.keys, 3u);
}

}  // namespace
}  // namespace kvroute::sim
