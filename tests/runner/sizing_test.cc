// `kvroute size` on a model whose answer is known: with the fixed-iteration
// cost model and one sequence at a time, each replica serves a request in one
// iteration D = 0.1 s, so the fleet is an M/D/c system, stable only when
// c > λ·D. At λ = 75 requests/s (λ·D = 7.5) and a p99 E2E threshold that a
// stable queue meets with room to spare, the fewest replicas are ceil(7.5) = 8;
// below that the backlog grows for the whole run and the p99 runs away.
#include "sim/runner/sizing.h"

#include <gtest/gtest.h>

#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

constexpr double kQps = 75;

Scenario MDc(const std::string& extra_cluster_keys = "", const std::string& loads = "[75]") {
  const std::string text = R"(name: mdc
seed: 3
seeds: 2
duration_s: 400
warmup_s: 50
drain_s: 200
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 1}]
  engine: {max_num_batched_tokens: 8192, max_num_seqs: 1}
  cost_model: {kind: fixed, iteration_s: 0.1}
)" + extra_cluster_keys + R"(
workload:
  keys: 50
  prompt: {system_tokens: 32, new_tokens: 32}
  output_tokens: 1
policies: [least_loaded]
sweep: {qps: )" + loads + R"(}
slo: [{metric: e2e, percentile: 99, threshold_s: 10}]
)";
  return LoadScenarioText(text, "mdc");
}

SizingOptions Options(uint32_t max_replicas) {
  return {.qps = kQps, .policy_index = 0, .max_replicas = max_replicas, .jobs = 2};
}

TEST(SizingTest, FewestReplicasIsTheMDcStabilityBound) {
  const SizingReport report = SizeFleet({MDc()}, Options(64));
  ASSERT_TRUE(report.search.found);
  EXPECT_EQ(report.search.cheapest, analysis::Fleet{8});
  EXPECT_EQ(report.search.single_kind_minimum, std::vector<uint32_t>{8});
  // $3.348 per H100-hour (models/gpus/h100-sxm.yaml) x 8 GPUs.
  EXPECT_NEAR(report.search.usd_per_hour, 8 * 3.348, 1e-9);
  // The neighbours are reported: 7 fails, 9 meets.
  ASSERT_NE(FindEvaluation(report, {7}), nullptr);
  EXPECT_FALSE(FindEvaluation(report, {7})->met);
  ASSERT_NE(FindEvaluation(report, {9}), nullptr);
  EXPECT_TRUE(FindEvaluation(report, {9})->met);
  // Bisection over 1..64, not a count: the largest, about six halvings and one more.
  EXPECT_LE(report.evaluations.size(), 9u);
}

TEST(SizingTest, SearchAgreesWithEveryCountTriedInTurn) {
  const Scenario s = MDc();
  const SizingReport report = SizeFleet({s}, Options(12));
  uint32_t fewest = 0;
  for (uint32_t c = 1; c <= 12 && fewest == 0; ++c) {
    if (EvaluateFleet({s}, {c}, Options(12)).met) fewest = c;
  }
  EXPECT_EQ(fewest, 8u);
  EXPECT_EQ(report.search.single_kind_minimum[0], fewest);
}

TEST(SizingTest, TheBoundIsTheUpperConfidenceLimitOverSeeds) {
  const FleetEvaluation e = EvaluateFleet({MDc()}, {8}, Options(8));
  ASSERT_EQ(e.slo.size(), 1u);
  EXPECT_EQ(e.slo[0].n, 2u);
  EXPECT_DOUBLE_EQ(e.slo_bound[0], e.slo[0].ci_high);
  EXPECT_GE(e.slo_bound[0], e.slo[0].mean);
  EXPECT_EQ(e.met, e.slo_bound[0] <= 10);
}

TEST(SizingTest, CheapestCandidateWinsAtItsOwnPrice) {
  // Same speed (the fixed cost model), three prices: the scenario's override wins
  // over the GPU file's, and the cheapest per replica is chosen.
  const SizingReport report = SizeFleet(
      {MDc(), MDc("  usd_per_gpu_hour: 1.5\n"), MDc("  usd_per_gpu_hour: 9\n")}, Options(16));
  ASSERT_TRUE(report.search.found);
  EXPECT_EQ(report.search.cheapest, (analysis::Fleet{0, 8, 0}));
  EXPECT_NEAR(report.search.usd_per_hour, 8 * 1.5, 1e-9);
  EXPECT_EQ(report.search.single_kind_minimum, (std::vector<uint32_t>{8, 8, 8}));
}

TEST(SizingTest, Deterministic) {
  const SizingReport a = SizeFleet({MDc()}, Options(16));
  const SizingReport b = SizeFleet({MDc()}, Options(16));
  ASSERT_EQ(a.evaluations.size(), b.evaluations.size());
  for (size_t i = 0; i < a.evaluations.size(); ++i) {
    EXPECT_EQ(a.evaluations[i].replicas, b.evaluations[i].replicas);
    EXPECT_EQ(a.evaluations[i].slo_bound, b.evaluations[i].slo_bound);
  }
}

// One sequence at a time (max_num_seqs 1): the M/D/c fleet one replica short
// of the answer queues for its slots; KV pools too small for the batch preempt.
TEST(SizingTest, BindingResourceOfTheFleetOneShort) {
  const FleetEvaluation short_one = EvaluateFleet({MDc()}, {7}, Options(8));
  EXPECT_FALSE(short_one.met);
  EXPECT_EQ(short_one.binding, "sequence slots");
  FleetEvaluation e;
  e.preemptions = 3;
  EXPECT_EQ(BindingResource(e, 256), "KV");
  e = FleetEvaluation{};
  e.kv_utilization = 0.95;
  EXPECT_EQ(BindingResource(e, 256), "KV");
  e = FleetEvaluation{};
  e.imbalance = 2.0;
  EXPECT_EQ(BindingResource(e, 256), "imbalance");
  e = FleetEvaluation{};
  e.in_system_per_replica = 40;
  e.imbalance = 1.1;
  EXPECT_EQ(BindingResource(e, 256), "compute");
}

// The inverse: $26.784 an hour buys 8 H100 replicas ($3.348 each), which
// sustain loads below the stability bound c/D = 80 requests/s; at 75 they
// meet the SLO (above), beyond 80 the backlog grows for the whole run.
TEST(SizingTest, BudgetBuysReplicasAndTheLoadTheySustain) {
  const std::vector<BudgetLoad> rows =
      LoadWithinBudget({MDc("", "[40, 100]")}, 8 * 3.348, Options(64), 1.0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].replicas, 8u);
  EXPECT_FALSE(rows[0].below_grid);
  EXPECT_GE(rows[0].meets_qps, 75);
  EXPECT_LT(rows[0].meets_qps, 80);
  EXPECT_GT(rows[0].misses_qps, rows[0].meets_qps);
  EXPECT_LE(rows[0].misses_qps - rows[0].meets_qps, 1.0);
  // Bisection from [40, 100] to 1 QPS: the two ends, then six halvings.
  EXPECT_EQ(rows[0].evaluations.size(), 8u);
}

TEST(SizingTest, ABudgetBelowOneReplicaBuysNothing) {
  const std::vector<BudgetLoad> rows =
      LoadWithinBudget({MDc("", "[40, 100]")}, 3.0, Options(64), 1.0);
  EXPECT_EQ(rows[0].replicas, 0u);
  EXPECT_TRUE(rows[0].evaluations.empty());
}

}  // namespace
}  // namespace kvroute::sim
