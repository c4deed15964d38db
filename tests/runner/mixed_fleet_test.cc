// Fleets of several GPU kinds: deployments of their own profile are split by
// weight unless they share a routing pool, where one policy sees every
// replica and a load-aware one sends the faster kind more; pools are checked
// when the scenario loads and print back as written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"

namespace kvroute::sim {
namespace {

constexpr char kMixedScenario[] = R"(name: mixed
seed: 1
duration_s: 60
warmup_s: 10
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - {name: h100, replicas: 2}
    - {name: a100, replicas: 2, profile: {model: llama-3.1-8b, gpu: a100-sxm-80gb}}
workload:
  keys: 50
  prompt: {system_tokens: 2048, new_tokens: 256}
  output_tokens: 64
policies: [round_robin, least_loaded]
sweep: {qps: [24]}
slo:
  - {metric: ttft, percentile: 99, threshold_s: 2}
)";

Scenario LoadMixedFleet(const std::vector<std::string>& overrides = {}) {
  return LoadScenarioText(kMixedScenario, "mixed.yaml", overrides);
}

// The share of measured requests sent to the two H100 replicas.
double H100Share(const Scenario& s, size_t policy) {
  const analysis::PointResult r = RunPoint(s, PointSpec{policy, 24, 1});
  const double h100 = static_cast<double>(r.replica_requests[0] + r.replica_requests[1]);
  double all = 0;
  for (uint64_t n : r.replica_requests) all += static_cast<double>(n);
  return h100 / all;
}

std::string Error(const std::vector<std::string>& overrides) {
  try {
    LoadMixedFleet(overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr char kPooled[] =
    "cluster.deployments=[{name: h100, replicas: 2, pool: main}, {name: a100, replicas: 2, pool: "
    "main, profile: {model: llama-3.1-8b, gpu: a100-sxm-80gb}}]";

TEST(MixedFleetTest, SeparateDeploymentsAreSplitByWeight) {
  const Scenario s = LoadMixedFleet();
  ASSERT_EQ(s.Pools().size(), 2u);
  for (size_t policy : {0, 1}) EXPECT_NEAR(H100Share(s, policy), 0.5, 0.03) << policy;
}

TEST(MixedFleetTest, APoolIsRoutedAsOneAndQueuesFavourTheFasterKind) {
  const Scenario s = LoadMixedFleet({kPooled});
  const std::vector<RoutingPool> pools = s.Pools();
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0].name, "main");
  EXPECT_EQ(pools[0].replicas, 4u);
  // Round robin alternates over all four replicas whatever their speed; the
  // shortest queue sends the H100s more, as they drain theirs sooner.
  EXPECT_NEAR(H100Share(s, 0), 0.5, 0.01);
  EXPECT_GT(H100Share(s, 1), 0.55);
  const std::string once = analysis::PointToJson(RunPoint(s, PointSpec{1, 24, 1}), s.slos);
  EXPECT_EQ(analysis::PointToJson(RunPoint(s, PointSpec{1, 24, 1}), s.slos), once);
}

TEST(MixedFleetTest, PoolsPrintBackAsWritten) {
  const Scenario s = LoadMixedFleet({kPooled});
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_NE(printed.find("pool: main"), std::string::npos) << printed;
  const Scenario again = LoadScenarioText(printed, "printed");
  EXPECT_EQ(ResolvedScenarioYaml(again), printed);
  EXPECT_EQ(analysis::PointToJson(RunPoint(again, PointSpec{1, 24, 1}), again.slos),
            analysis::PointToJson(RunPoint(s, PointSpec{1, 24, 1}), s.slos));
}

TEST(MixedFleetTest, BadPoolsFailNamingTheKey) {
  std::string e = Error(
      {"cluster.deployments=[{name: a, replicas: 1, pool: p}, {name: b, replicas: 1}, {name: c, "
       "replicas: 1, pool: p}]"});
  EXPECT_NE(e.find("cluster.deployments[2].pool"), std::string::npos) << e;
  EXPECT_NE(e.find("must be listed next to each other"), std::string::npos) << e;
  e =
      Error({"cluster.deployments=[{name: a, replicas: 1, pool: p, policy: round_robin}, {name: b, "
             "replicas: 1, pool: p, policy: least_loaded}]"});
  EXPECT_NE(e.find("cluster.deployments[1].policy"), std::string::npos) << e;
  EXPECT_NE(e.find("already given by a"), std::string::npos) << e;
  e = Error(
      {"cluster.deployments=[{name: a, replicas: 1, role: prefill, pool: p}, {name: b, replicas: "
       "1, role: decode, pool: p}]",
       "cluster.disaggregation={}"});
  EXPECT_NE(e.find("cluster.deployments[1].role"), std::string::npos) << e;
  EXPECT_NE(e.find("pool 'p' mixes roles"), std::string::npos) << e;
}

}  // namespace
}  // namespace kvroute::sim
