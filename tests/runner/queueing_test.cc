// The engine against queueing theory. With the fixed-iteration cost model and
// one sequence at a time, a replica is an M/G/1 FCFS queue whose service time
// is (prefill iterations + output − 1) × iteration time, so the
// Pollaczek–Khinchine formula gives the mean wait exactly:
//   Wq = λ·E[S²] / (2·(1 − ρ)),  ρ = λ·E[S].
#include <gtest/gtest.h>

#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

Scenario SingleServer(double duration_s, const std::string& output_tokens) {
  std::string text = R"(name: mg1
seed: 11
duration_s: )" + std::to_string(duration_s) +
                     R"(
warmup_s: 200
drain_s: 1000
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 1}]
  engine: {max_num_batched_tokens: 8192, max_num_seqs: 1}
  cost_model: {kind: fixed, iteration_s: 0.1}
workload:
  keys: 10
  prompt: {system_tokens: 32, new_tokens: 32}
  output_tokens: )" + output_tokens +
                     R"(
policies: [round_robin]
sweep: {qps: [1]}
slo: [{metric: e2e, percentile: 99, threshold_s: 100}]
)";
  return LoadScenarioText(text, "mg1");
}

// Mean time from arrival to completion: the wait plus the mean service time.
double MeanSojourn(const Scenario& s, double qps) {
  analysis::PointResult r = RunPoint(s, PointSpec{0, qps, s.seed});
  EXPECT_EQ(r.unfinished, 0u);
  return r.e2e.mean;
}

// M/D/1: one iteration of 0.1 s per request. Wq = ρ·D / (2(1 − ρ)).
TEST(QueueingTest, MD1MeanWaitMatchesPollaczekKhinchineAtHalfLoad) {
  Scenario s = SingleServer(60000, "1");
  double wait = MeanSojourn(s, 5.0) - 0.1;
  EXPECT_NEAR(wait, 0.5 * 0.1 / (2 * 0.5), 0.03 * 0.05);
}

TEST(QueueingTest, MD1MeanWaitMatchesPollaczekKhinchineAtEightyPercent) {
  Scenario s = SingleServer(100000, "1");
  double wait = MeanSojourn(s, 8.0) - 0.1;
  EXPECT_NEAR(wait, 0.8 * 0.1 / (2 * 0.2), 0.03 * 0.2);
}

// The time series reads the queue at 10 instants per bucket: over the
// measured buckets their mean is the time-average queue length, which Little's
// law gives as Lq = λ·Wq = 5 × 0.05 = 0.25 requests for M/D/1 at ρ = 0.5.
TEST(QueueingTest, SampledQueueLengthMatchesLittlesLawForTheWait) {
  Scenario s = SingleServer(60000, "1");
  analysis::PointResult r = RunPoint(s, PointSpec{0, 5.0, s.seed});
  double sum = 0;
  int buckets = 0;
  for (const analysis::SeriesSample& b : r.series) {
    if (b.start_s < 200 || b.start_s >= 60000) continue;
    sum += b.mean_waiting;
    ++buckets;
  }
  ASSERT_EQ(buckets, 5980);
  EXPECT_NEAR(sum / buckets, 0.25, 0.05 * 0.25);
}

// M/G/1: output uniform on 1..5 tokens, S = k × 0.1 s: E[S] = 0.3 s,
// E[S²] = 0.01 × 11 = 0.11 s².
TEST(QueueingTest, MG1MeanWaitMatchesPollaczekKhinchine) {
  Scenario s = SingleServer(100000, "{kind: uniform, min: 1, max: 5}");
  for (double rho : {0.5, 0.8}) {
    double lambda = rho / 0.3;
    double expected = lambda * 0.11 / (2 * (1 - rho));
    double wait = MeanSojourn(s, lambda) - 0.3;
    EXPECT_NEAR(wait, expected, 0.03 * expected) << "rho " << rho;
  }
}

// Little's law L = λ·W on a multi-replica roofline run under a cache-aware
// policy: the time-average number in system against the arrival rate times the
// mean sojourn time.
TEST(QueueingTest, LittlesLawHoldsOnAMultiReplicaRun) {
  Scenario s = LoadScenarioText(QuickstartYaml(), "built-in quickstart",
                                {"duration_s=1200", "warmup_s=100"});
  for (size_t policy = 0; policy < s.policies.size(); ++policy) {
    analysis::PointResult r = RunPoint(s, PointSpec{policy, 60, 1});
    double lambda = static_cast<double>(r.measured) / (1200 - 100);
    EXPECT_NEAR(r.mean_in_system, lambda * r.e2e.mean, 0.03 * r.mean_in_system)
        << s.policies[policy].name;
  }
}

}  // namespace
}  // namespace kvroute::sim
