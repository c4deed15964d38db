// cluster.disaggregation and deployments with their own profile, end to end:
// a split request's TTFT is its prefill, the KV transfer and the first decode
// step, worked by hand; the deciders split what their rules say; the link is
// shared first come first served; runs are deterministic with everything on;
// bad keys fail naming the file, line and key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"
#include "tests/runner/request_log.h"

namespace kvroute::sim {
namespace {

// Two pools of one replica each; every iteration takes 10 ms whatever it
// holds, so times can be worked by hand. The trace's requests share their
// first 62 blocks (1,000 tokens).
constexpr char kScenario[] = R"(name: pd
seed: 1
duration_s: 20
warmup_s: 0
drain_s: 20
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - {name: prefill, role: prefill, replicas: 1}
    - {name: decode, role: decode, replicas: 1}
  disaggregation: {decider: always, link_gb_per_s: 10, link_latency_us: 100}
  cost_model: {kind: fixed, iteration_s: 0.01}
workload:
  trace: {file: trace.csv, timing: native}
policies: [least_loaded]
slo:
  - {metric: ttft, percentile: 90, threshold_s: 1}
)";

// "from from+1 ... from+n-1": a prompt's block ids.
std::string Ids(int from, int n) {
  std::string ids;
  for (int i = from; i < from + n; ++i) {
    if (!ids.empty()) ids += ' ';
    ids += std::to_string(i);
  }
  return ids;
}

class DisaggregationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kvroute_pd_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    const std::string ids = Ids(1, 62);
    // Request 1 at t=1; request 2 repeats its prompt at t=5, after it is done.
    Write("trace.csv", "time_s,prompt_tokens,output_tokens,hash_ids\n1,1000,5," + ids +
                           "\n5,1000,5," + ids + "\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  Scenario Load(const std::vector<std::string>& overrides = {}) {
    return LoadScenarioText(kScenario, "pd.yaml", overrides, dir_.string());
  }
  // The trace's own timing: its native rate is the only load.
  static analysis::PointResult Run(const Scenario& s, Records* log = nullptr) {
    return RunPoint(s, PointSpec{0, s.qps.front(), 1}, log);
  }
  static double Stat(const analysis::PointResult& r, const std::string& name) {
    for (const auto& [key, value] : r.policy_stats) {
      if (key == "disaggregation." + name) return value;
    }
    return std::nan("");
  }
  static std::string Error(const std::string& text) {
    try {
      LoadScenarioText(text, "bad.yaml");
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "(no error)";
  }

  std::filesystem::path dir_;
};

TEST_F(DisaggregationTest, SplitTtftIsPrefillTransferAndFirstDecodeStep) {
  const Scenario s = Load();
  Records log;
  const analysis::PointResult r = Run(s, &log);
  ASSERT_EQ(log.all.size(), 2u);
  const analysis::RequestRecord& first = log.all[0];
  // Prefill: one 10 ms iteration. Transfer: every prompt token but the last
  // (999) of 131,072 bytes (Llama-3.1-8B, bf16: 32 layers x 8 KV heads x 128
  // x 2 x 2 bytes) at 10 GB/s after 100 us. First decode step: 10 ms.
  const double transfer_s = 100e-6 + 999.0 * 131072 / 10e9;
  const double ttft_s = 0.01 + transfer_s + 0.01;
  EXPECT_NEAR(ToSeconds(first.first_token - first.arrival), ttft_s, 2e-9);
  // Four more tokens, one per 10 ms iteration.
  EXPECT_NEAR(ToSeconds(first.completed - first.arrival), ttft_s + 0.04, 2e-9);
  EXPECT_EQ(first.replica, 1u);  // the record names the decode replica
  EXPECT_EQ(first.prefill_replica, 0u);
  EXPECT_NEAR(ToSeconds(first.kv_arrived - first.kv_sent), transfer_s, 2e-9);
  // The second request's prompt is cached on the decode replica: only its
  // last, partial block (999 - 62 x 16 = 7 tokens) travels.
  EXPECT_DOUBLE_EQ(Stat(r, "split_share"), 1);
  EXPECT_DOUBLE_EQ(Stat(r, "transfers"), 2);
  EXPECT_NEAR(Stat(r, "transfer_gb"), (999.0 + 7) * 131072 / 1e9, 1e-12);
  // The prefill replica served the second prompt from its cache.
  EXPECT_EQ(log.all[1].hit_tokens, 62u * 16);
}

TEST_F(DisaggregationTest, DecidersSplitWhatTheirRulesSay) {
  // decode_first: the first prompt is not on the decode replica (split), the
  // second is (prefilled there, one 10 ms iteration for its last block).
  Records log;
  analysis::PointResult r = Run(Load({"cluster.disaggregation={decider: decode_first}"}), &log);
  EXPECT_DOUBLE_EQ(Stat(r, "split_share"), 0.5);
  ASSERT_EQ(log.all.size(), 2u);
  EXPECT_NEAR(ToSeconds(log.all[1].first_token - log.all[1].arrival), 0.01, 2e-9);
  EXPECT_EQ(log.all[1].prefill_replica, UINT32_MAX);  // prefilled where it decoded
  EXPECT_EQ(log.all[1].kv_arrived, kNever);
  // threshold: 1,000 uncached tokens split at a threshold of 1,000; the
  // second request's 8 uncached tokens do not.
  r = Run(Load({"cluster.disaggregation={decider: threshold, threshold_tokens: 1000}"}));
  EXPECT_DOUBLE_EQ(Stat(r, "split_share"), 0.5);
  r = Run(Load({"cluster.disaggregation={decider: threshold, threshold_tokens: 1001}"}));
  EXPECT_DOUBLE_EQ(Stat(r, "split_share"), 0);
  EXPECT_DOUBLE_EQ(Stat(r, "transfers"), 0);
}

TEST_F(DisaggregationTest, TransfersShareTheLinkFirstComeFirstServed) {
  // Two different prompts at once on one prefill replica: the first starts
  // an iteration on arrival, the second prefills in the next one, 10 ms
  // later, while the first transfer (13.2 ms) still holds the link.
  const std::string a = Ids(1, 62), b = Ids(101, 62);
  Write("trace.csv",
        "time_s,prompt_tokens,output_tokens,hash_ids\n1,1000,5," + a + "\n1,1000,5," + b + "\n");
  Records log;
  const analysis::PointResult r = Run(Load(), &log);
  const double transfer_s = 100e-6 + 999.0 * 131072 / 10e9;
  const double wait_s = transfer_s - 0.01;
  EXPECT_NEAR(Stat(r, "mean_link_wait_s"), wait_s / 2, 1e-9);
  EXPECT_NEAR(Stat(r, "mean_transfer_s"), (transfer_s + wait_s + transfer_s) / 2, 1e-9);
  ASSERT_EQ(log.all.size(), 2u);
  // The second KV arrives one transfer (13.2 ms) after the first, during the
  // decode replica's second 10 ms iteration; it joins the third.
  EXPECT_NEAR(ToSeconds(log.all[1].first_token - log.all[0].first_token), 0.02, 2e-9);
}

TEST_F(DisaggregationTest, DeterministicWithEverythingOn) {
  const Scenario s = Load({"cluster.disaggregation={decider: decode_first}",
                           "cluster.kv_events={delay_s: 0.5, loss: 0.1}",
                           "cluster.kv_tiers={dram_gib: 1, offload: write_through}",
                           "failures={retry_limit: 2, schedule: [{replica: 1, at_s: 1.005, "
                           "recover_after_s: 1}]}"});
  const std::string once = analysis::PointToJson(Run(s), s.slos);
  EXPECT_EQ(analysis::PointToJson(Run(s), s.slos), once);
}

TEST_F(DisaggregationTest, OwnProfilesSizeAndPriceEachDeployment) {
  const Scenario s =
      Load({"cluster.deployments=[{name: prefill, role: prefill, replicas: 1, profile: {model: "
            "llama-3.1-8b, gpu: a100-sxm-80gb}, usd_per_gpu_hour: 2}, {name: decode, role: decode, "
            "replicas: 2, profile: h200-llama3.1-8b-fp8}]"});
  ASSERT_TRUE(s.MixedProfiles());
  EXPECT_EQ(s.KvBlocksOf(0), static_cast<uint32_t>(s.deployments[0].profile->KvCapacityBlocks()));
  EXPECT_NE(s.KvBlocksOf(0), s.KvBlocksOf(1));
  EXPECT_DOUBLE_EQ(DeploymentFleetCost(s, 0, 1).UsdPerHour(), 2);
  EXPECT_DOUBLE_EQ(DeploymentFleetCost(s, 1, 2).UsdPerHour(),
                   2 * s.deployments[1].profile->gpu.usd_per_gpu_hour);
  // The time series bills each deployment at its own price.
  const analysis::PointResult r = Run(s);
  double usd = 0;
  for (const analysis::SeriesSample& b : r.series) usd += b.usd;
  const double hours = r.simulated_s / 3600;
  EXPECT_NEAR(usd, hours * (2 + 2 * s.deployments[1].profile->gpu.usd_per_gpu_hour), 1e-9);
  EXPECT_NE(FleetCostLine(s).find("decode 2 replicas"), std::string::npos) << FleetCostLine(s);
}

// A prefill pool of two GPU kinds (one routing pool of two deployments, one
// policy): every prompt is prefilled by one of its two replicas, both take
// work, and each request is counted once, at the decode replica.
TEST_F(DisaggregationTest, APrefillPoolOfTwoKinds) {
  std::string trace = "time_s,prompt_tokens,output_tokens,hash_ids\n";
  for (int i = 0; i < 20; ++i) {
    trace += std::to_string(1 + 0.5 * i) + ",1000,5," + Ids(1000 * (i + 1), 62) + "\n";
  }
  Write("many.csv", trace);
  const Scenario s = LoadScenarioText(R"(name: pd_pool
seed: 1
duration_s: 20
warmup_s: 0
drain_s: 30
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments:
    - {name: h100, role: prefill, replicas: 1, pool: prefill}
    - {name: a100, role: prefill, replicas: 1, pool: prefill,
       profile: {model: llama-3.1-8b, gpu: a100-sxm-80gb}}
    - {name: decode, role: decode, replicas: 1}
  disaggregation: {decider: always}
workload:
  trace: {file: many.csv, timing: native}
policies: [round_robin]
slo:
  - {metric: ttft, percentile: 90, threshold_s: 1}
)",
                                      "pd_pool.yaml", {}, dir_.string());
  ASSERT_EQ(s.Pools().size(), 2u);
  Records log;
  const analysis::PointResult r = Run(s, &log);
  ASSERT_EQ(log.all.size(), 20u);
  uint32_t on[2] = {0, 0};
  for (const analysis::RequestRecord& rec : log.all) {
    EXPECT_EQ(rec.outcome, analysis::RequestRecord::Outcome::kCompleted);
    EXPECT_EQ(rec.replica, 2u);  // the decode replica
    ASSERT_LT(rec.prefill_replica, 2u);
    ++on[rec.prefill_replica];
  }
  EXPECT_EQ(on[0], 10u);  // round robin over the pool's two replicas
  EXPECT_EQ(on[1], 10u);
  EXPECT_EQ(r.replica_requests, (std::vector<uint64_t>{0, 0, 20}));
  EXPECT_DOUBLE_EQ(Stat(r, "split_share"), 1);
}

TEST_F(DisaggregationTest, ThePrintedScenarioReadsBackTheSame) {
  for (const char* decider : {"{decider: threshold, threshold_tokens: 300}", "{}"}) {
    const Scenario s =
        Load({std::string("cluster.disaggregation=") + decider,
              "cluster.deployments=[{name: p, role: prefill, replicas: 2, profile: {model: "
              "llama-3.1-8b, gpu: a100-sxm-80gb}}, {name: d, role: decode, replicas: 3, profile: "
              "h200-llama3.1-8b-fp8, usd_per_gpu_hour: 4}]"});
    const std::string printed = ResolvedScenarioYaml(s);
    const Scenario again = LoadScenarioText(printed, "printed", {}, dir_.string());
    EXPECT_EQ(ResolvedScenarioYaml(again), printed);
    // Each deployment keeps the engine defaults of its own GPU (vLLM's
    // smaller budget on an A100).
    EXPECT_EQ(again.SchedulerOf(0).max_num_batched_tokens, s.SchedulerOf(0).max_num_batched_tokens);
    EXPECT_NE(again.SchedulerOf(0).max_num_batched_tokens,
              again.SchedulerOf(1).max_num_batched_tokens);
    EXPECT_EQ(analysis::PointToJson(Run(again), again.slos), analysis::PointToJson(Run(s), s.slos));
  }
}

TEST_F(DisaggregationTest, BadKeysFailNamingFileLineAndKey) {
  const std::string head = "name: x\ncluster:\n  profile: h100-llama3.1-8b-bf16\n  deployments:\n";
  const std::string tail = "workload: {keys: 4}\npolicies: [least_loaded]\nsweep: {qps: [1]}\n";
  const std::string pd =
      "    - {name: p, role: prefill, replicas: 1}\n"
      "    - {name: d, role: decode, replicas: 1}\n";
  EXPECT_NE(Error(head + pd + tail).find("bad.yaml:5: key 'cluster.deployments[0].role'"),
            std::string::npos)
      << Error(head + pd + tail);
  std::string e = Error(head + pd + "  disaggregation: {decider: threshold}\n" + tail);
  EXPECT_NE(e.find("cluster.disaggregation.threshold_tokens"), std::string::npos) << e;
  e = Error(head + pd + "  disaggregation: {threshold_tokens: 5}\n" + tail);
  EXPECT_NE(e.find("only the threshold decider"), std::string::npos) << e;
  e = Error(head + pd + "    - {name: e, role: decode, replicas: 1}\n  disaggregation: {}\n" +
            tail);
  EXPECT_NE(e.find("two routing pools, the prefill pool and the decode pool (found 3)"),
            std::string::npos)
      << e;
  e = Error(head + pd + "    - {name: s, replicas: 1}\n  disaggregation: {}\n" + tail);
  EXPECT_NE(e.find("found 3 deployments, 1 prefill, 1 decode"), std::string::npos) << e;
  e = Error(head + "    - {name: p, role: prefill, replicas: 1, pool: all}\n" +
            "    - {name: d, role: decode, replicas: 1, pool: all}\n  disaggregation: {}\n" + tail);
  EXPECT_NE(e.find("bad.yaml:6: key 'cluster.deployments[1].role': pool 'all' mixes roles"),
            std::string::npos)
      << e;
  e = Error(head + "    - {name: p, role: prefill, replicas: 1, weight: 2}\n" +
            "    - {name: d, role: decode, replicas: 1}\n  disaggregation: {}\n" + tail);
  EXPECT_NE(e.find("bad.yaml:5: key 'cluster.deployments[0].weight'"), std::string::npos) << e;
  e = Error(head + "    - {name: p, replicas: 1, profile: h100-qwen3-14b-bf16}\n" + tail);
  EXPECT_NE(e.find("serves model 'qwen3-14b'"), std::string::npos) << e;
  e = Error(head + "    - {name: p, role: server, replicas: 1}\n" + tail);
  EXPECT_NE(e.find("cluster.deployments[0].role"), std::string::npos) << e;
  e = Error(head + pd + "  disaggregation: {decidr: always}\n" + tail);
  EXPECT_NE(e.find("did you mean 'decider'"), std::string::npos) << e;
  // The deployment split's cache and load preferences have no deployments to split between.
  for (const char* key : {"lambda_h", "lambda_q"}) {
    e = Error(head + pd + "  disaggregation: {}\n  " + key + ": 1\n" + tail);
    EXPECT_NE(e.find(std::string("key 'cluster.") + key + "': chooses between serving deployments"),
              std::string::npos)
        << e;
  }
}

}  // namespace
}  // namespace kvroute::sim
