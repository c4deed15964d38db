// Per-request CSV (analysis/request_csv.h): its rows add up to the point's
// aggregates exactly, and a file is only ever complete.
#include "analysis/request_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/atomic_file.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/request_csv_files.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

namespace fs = std::filesystem;

struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  double Number(size_t i, const std::string& column) const { return std::stod(rows[i].at(column)); }
};

Csv ReadCsv(const std::string& path) {
  std::ifstream in(path);
  Csv csv;
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::stringstream ss(l);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    if (!l.empty() && l.back() == ',') cells.emplace_back();
    return cells;
  };
  std::getline(in, line);
  csv.header = split(line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), csv.header.size()) << line;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < csv.header.size(); ++i)
      row[csv.header[i]] = cells[i];
    csv.rows.push_back(row);
  }
  return csv;
}

// A small cluster under pressure: a small KV pool (preemptions, rejections of
// prompts that cannot fit), a replica failure with retries, a warm-up and a
// short drain (unfinished requests).
Scenario Pressured(const std::vector<std::string>& overrides = {}) {
  return LoadScenarioText(R"(name: pressured
seed: 3
duration_s: 60
warmup_s: 10
drain_s: 2
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: a, replicas: 2}, {name: b, replicas: 2}]
  kv_blocks: 600
workload:
  keys: 40
  prompt:
    system_tokens: 512
    new_tokens: {kind: lognormal, median: 800, sigma: 1, min: 16, max: 12000}
  output_tokens: {kind: uniform, min: 1, max: 400}
policies: [round_robin]
sweep: {qps: [30]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
failures:
  retry_limit: 1
  schedule: [{replica: 1, at_s: 20, recover_after_s: 10}, {replica: 3, at_s: 40}]
)",
                          "pressured.yaml", overrides);
}

// With host and SSD tiers, the DRAM and SSD shares of the cached tokens add up
// to the point's dram_token_hit_rate and ssd_token_hit_rate.
TEST(RequestCsvTest, TierCachedTokensAddUpToThePointsTierHitRates) {
  const Scenario s = Pressured({"cluster.kv_tiers={dram_gib: 0.25, ssd_gib: 2}"});
  const std::string path = testing::TempDir() + "requests_dram.csv";
  analysis::RequestCsvWriter writer(path, RequestCsvContextFor(s));
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 30, 3}, &writer);
  writer.Commit();
  const Csv csv = ReadCsv(path);
  double prompt = 0, cached = 0, dram = 0, ssd = 0;
  for (size_t i = 0; i < csv.rows.size(); ++i) {
    if (csv.rows[i].at("measured") != "1" || csv.rows[i].at("admitted") != "1") continue;
    prompt += csv.Number(i, "prompt_tokens");
    cached += csv.Number(i, "cached_tokens");
    dram += csv.Number(i, "dram_cached_tokens");
    ssd += csv.Number(i, "ssd_cached_tokens");
    EXPECT_LE(csv.Number(i, "dram_cached_tokens") + csv.Number(i, "ssd_cached_tokens"),
              csv.Number(i, "cached_tokens"));
  }
  EXPECT_GT(dram, 0);
  EXPECT_GT(ssd, 0);
  EXPECT_EQ(dram / prompt, r.dram_token_hit_rate);
  EXPECT_EQ(ssd / prompt, r.ssd_token_hit_rate);
  EXPECT_EQ(cached / prompt, r.token_hit_rate);
}

TEST(RequestCsvTest, RowsAddUpToThePointsAggregates) {
  const Scenario s = Pressured();
  const std::string path = testing::TempDir() + "requests_sum.csv";
  analysis::RequestCsvWriter writer(path, RequestCsvContextFor(s));
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 30, 3}, &writer);
  writer.Commit();
  const Csv csv = ReadCsv(path);
  ASSERT_EQ(csv.header.size(), analysis::RequestColumns().size());
  ASSERT_EQ(csv.rows.size(), r.offered);
  std::map<std::string, uint64_t> outcomes;
  uint64_t measured = 0, retries = 0, preemptions = 0, admitted = 0, with_hit = 0;
  double prompt = 0, cached = 0;
  for (size_t i = 0; i < csv.rows.size(); ++i) {
    ++outcomes[csv.rows[i].at("outcome")];
    retries += static_cast<uint64_t>(csv.Number(i, "retries"));
    preemptions += static_cast<uint64_t>(csv.Number(i, "preemptions"));
    if (csv.rows[i].at("measured") != "1") continue;
    ++measured;
    if (csv.rows[i].at("admitted") != "1") continue;
    ++admitted;
    prompt += csv.Number(i, "prompt_tokens");
    cached += csv.Number(i, "cached_tokens");
    with_hit += csv.Number(i, "cached_tokens") > 0;
  }
  EXPECT_EQ(outcomes["completed"], r.completed);
  EXPECT_EQ(outcomes["rejected"], r.rejected);
  EXPECT_EQ(outcomes["failed"], r.failed);
  EXPECT_EQ(outcomes["unfinished"], r.unfinished);
  EXPECT_EQ(measured, r.measured);
  EXPECT_EQ(retries, r.retried);
  EXPECT_EQ(preemptions, r.preemptions);
  EXPECT_EQ(cached / prompt, r.token_hit_rate);
  EXPECT_EQ(static_cast<double>(with_hit) / static_cast<double>(admitted), r.request_hit_rate);
  // The pressure was real: every kind of row is there.
  EXPECT_GT(r.rejected + r.failed, 0u);
  EXPECT_GT(r.retried, 0u);
  EXPECT_GT(r.preemptions, 0u);
  EXPECT_GT(r.unfinished, 0u);
  // Latencies are consistent with each other.
  for (size_t i = 0; i < csv.rows.size(); ++i) {
    const auto& row = csv.rows[i];
    if (row.at("outcome") != "completed") {
      EXPECT_EQ(row.at("e2e_s"), "");
      continue;
    }
    EXPECT_LE(csv.Number(i, "queue_s"), csv.Number(i, "ttft_s"));
    EXPECT_LE(csv.Number(i, "ttft_s"), csv.Number(i, "e2e_s"));
    const std::string& d = row.at("deployment");
    EXPECT_EQ(d, csv.Number(i, "replica") < 2 ? "a" : "b");
  }
  // round_robin gives one reason and no score; a request never routed none.
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("route_reason"), row.at("replica").empty() ? "" : "round_robin");
    EXPECT_EQ(row.at("route_score"), "");
  }
}

// The reasons and scores of a policy that has both reach the file, parsable;
// writing them changes nothing in the point.
TEST(RequestCsvTest, RouteReasonAndScoreColumns) {
  Scenario s = Pressured();
  s.failures = {};
  s.policies = LoadScenarioText(R"(name: p
cluster: {profile: h100-llama3.1-8b-bf16, deployments: [{name: a, replicas: 2}]}
workload: {keys: 40}
policies: [{name: cacheroute, q_cap: 3, slots_per_replica: 2, interval_s: 5}]
sweep: {qps: [30]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
)",
                                "p.yaml", {})
                   .policies;
  const std::string path = testing::TempDir() + "requests_reasons.csv";
  analysis::RequestCsvWriter writer(path, RequestCsvContextFor(s));
  const analysis::PointResult with = RunPoint(s, PointSpec{0, 30, 3}, &writer);
  writer.Commit();
  const analysis::PointResult without = RunPoint(s, PointSpec{0, 30, 3}, nullptr);
  EXPECT_EQ(with.completed, without.completed);
  EXPECT_EQ(with.token_hit_rate, without.token_hit_rate);
  EXPECT_EQ(with.ttft.p99, without.ttft.p99);
  const Csv csv = ReadCsv(path);
  std::map<std::string, uint64_t> reasons;
  for (size_t i = 0; i < csv.rows.size(); ++i) {
    const auto& row = csv.rows[i];
    ++reasons[row.at("route_reason")];
    if (row.at("route_reason").empty()) continue;
    size_t used = 0;
    const double score = std::stod(row.at("route_score"), &used);  // outstanding tokens
    EXPECT_EQ(used, row.at("route_score").size());
    EXPECT_GE(score, 0);
    EXPECT_EQ(score, std::floor(score));
  }
  EXPECT_GT(reasons["plan"], 0u);
  EXPECT_GT(reasons["fallback"], 0u);
  EXPECT_EQ(reasons["plan"] + reasons["fallback"], csv.rows.size());
}

TEST(RequestCsvTest, AnUncommittedFileLeavesNothingAndKeepsTheOldOne) {
  const std::string path = testing::TempDir() + "requests_keep.csv";
  {
    std::ofstream old(path);
    old << "earlier result\n";
  }
  {
    analysis::RequestCsvWriter writer(path, {});
    writer.OnRequest(analysis::RequestRecord{});
    EXPECT_TRUE(fs::exists(analysis::TemporaryPathFor(path)));
  }  // destroyed without Commit: as if the point had thrown
  EXPECT_FALSE(fs::exists(analysis::TemporaryPathFor(path)));
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "earlier result");
  EXPECT_THROW(analysis::RequestCsvWriter(testing::TempDir() + "no/such/dir/x.csv", {}),
               std::runtime_error);
}

TEST(RequestCsvTest, RunWritesOneFilePerPoint) {
  Scenario s = Pressured();
  const fs::path dir = fs::path(testing::TempDir()) / "requests_run";
  fs::create_directories(dir);
  s.requests_dir = dir.string();
  s.policies[0].label = "round/robin";
  const analysis::PointResult r = RunPointWithRequestFile(s, PointSpec{0, 12.5, 7});
  const std::string path = (dir / "round_robin_qps12.5_seed7.csv").string();
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(ReadCsv(path).rows.size(), r.offered);
}

// A request DualMap moves from one queue to another (Policy::Rebalance) is
// recorded as `rebalanced`, without a score: its Route reason was about the
// replica it left. The setting is cluster_simulation_test's, where moves happen.
TEST(RequestCsvTest, MovedRequestsAreRebalanced) {
  const Scenario s = LoadScenarioText(R"(name: moves
seed: 1
duration_s: 120
warmup_s: 20
drain_s: 60
cluster: {profile: h100-llama3.1-8b-bf16, deployments: [{name: main, replicas: 4}]}
workload:
  keys: 200
  prompt: {system_tokens: 1024, new_tokens: {kind: uniform, min: 32, max: 512}}
  output_tokens: {kind: uniform, min: 1, max: 200}
policies: [{name: dualmap, ttft_slo_s: 0.05}]
sweep: {qps: [100]}
slo: [{metric: ttft, percentile: 99, threshold_s: 2}]
)",
                                      "moves.yaml", {});
  struct Reasons : analysis::RequestRecorder {
    void OnRequest(const analysis::RequestRecord& r) override {
      ++count[r.route_reason != nullptr ? r.route_reason : ""];
      if (r.route_reason != nullptr && std::string(r.route_reason) == "rebalanced") {
        EXPECT_TRUE(std::isnan(r.route_score));
      }
    }
    std::map<std::string, uint64_t> count;
  } reasons;
  const analysis::PointResult r = RunPoint(s, PointSpec{0, 100, 1}, &reasons);
  double moves = 0;
  for (const auto& [name, value] : r.policy_stats) {
    if (name == "dualmap_rebalance_moves") moves = value;
  }
  EXPECT_GT(reasons.count["rebalanced"], 0u);
  EXPECT_LE(static_cast<double>(reasons.count["rebalanced"]), moves);
  EXPECT_EQ(reasons.count[""], 0u);
  EXPECT_GT(reasons.count["prefix_match"], 0u);
}

}  // namespace
}  // namespace kvroute::sim
