// cluster.kv_tiers end to end: without the key a point is what it was before
// host tiers existed (goldens recorded then), with it a run is deterministic
// and reuses more, and bad keys are rejected naming the file, line and key.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/point_pool.h"
#include "sim/runner/scenario_loader.h"

namespace kvroute::sim {
namespace {

constexpr char kDir[] = "tests/runner/kv_tiers_absent_golden/";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The point's JSON without the fields added since the goldens were recorded:
// host tiers', the delayed KV-event views', the time series' billing and the
// autoscalers' changes (an empty list here).
// Every field the goldens have must keep its value.
std::string WithoutTierFields(std::string json) {
  for (const char* name :
       {"hbm_token_hit_rate", "dram_token_hit_rate", "kv_offload_bytes", "kv_load_bytes",
        "kv_load_s", "dram_dropped_blocks", "kv_view_lookups", "kv_view_overestimated",
        "kv_view_underestimated", "kv_view_error_blocks", "billed_replicas", "usd",
        "fleet_changes"}) {
    const std::string key = std::string(",\"") + name + "\":";
    for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at)) {
      const size_t end = json.find_first_of(",}", at + key.size());
      json.erase(at, end - at);
    }
  }
  return json;
}

Scenario Small(const std::vector<std::string>& overrides = {}) {
  return LoadScenarioFile(std::string(kDir) + "small.yaml", overrides);
}

std::string Json(const Scenario& s, size_t policy) {
  return analysis::PointToJson(RunPoint(s, PointSpec{policy, 20, 1}), s.slos);
}

// The goldens are `kvroute point small.yaml --policy P --qps 20 --seed 1
// --json` from the version before cluster.kv_tiers existed, on a pool small
// enough to evict and preempt.
TEST(KvTiersTest, WithoutTheKeyAPointIsWhatItWasBefore) {
  const Scenario s = Small();
  ASSERT_EQ(s.policies.size(), 2u);
  for (size_t p = 0; p < 2; ++p) {
    const std::string golden = Read(std::string(kDir) + s.policies[p].name + ".json");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(WithoutTierFields(Json(s, p)) + "\n", golden) << s.policies[p].name;
  }
}

TEST(KvTiersTest, NoDramIsNoTier) {
  const Scenario absent = Small();
  const Scenario zero = Small({"cluster.kv_tiers={dram_gib: 0, offload: write_through}"});
  EXPECT_FALSE(zero.scheduler.kv_tier.enabled());
  EXPECT_EQ(Json(zero, 1), Json(absent, 1));
}

TEST(KvTiersTest, ATierIsDeterministicAndServesWhatHbmLost) {
  for (const char* rule : {"on_evict", "write_through"}) {
    const Scenario s =
        Small({std::string("cluster.kv_tiers={dram_gib: 4, offload: ") + rule + "}"});
    const analysis::PointResult with = RunPoint(s, PointSpec{1, 20, 1});
    const analysis::PointResult without = RunPoint(Small(), PointSpec{1, 20, 1});
    EXPECT_EQ(analysis::PointToJson(with, s.slos), Json(s, 1)) << rule;
    EXPECT_GT(with.dram_token_hit_rate, 0) << rule;
    EXPECT_GT(with.token_hit_rate, without.token_hit_rate) << rule;
    EXPECT_LT(with.prefill_tokens_computed, without.prefill_tokens_computed) << rule;
    EXPECT_DOUBLE_EQ(with.hbm_token_hit_rate + with.dram_token_hit_rate, with.token_hit_rate);
    EXPECT_GT(with.kv_offload_bytes, 0) << rule;
    EXPECT_GT(with.kv_load_bytes, 0) << rule;
    EXPECT_GT(with.kv_load_s, 0) << rule;
    EXPECT_EQ(without.kv_load_bytes, 0);
    EXPECT_EQ(without.dram_token_hit_rate, 0);
  }
}

// 4 GiB of Llama-3.1-8B bf16 blocks: 16 tokens x 131,072 bytes = 2 MiB each,
// so 2,048 blocks; TP1 moves them at the per-GPU rate.
TEST(KvTiersTest, SizesComeFromTheProfile) {
  const Scenario s =
      Small({"cluster.kv_tiers={dram_gib: 4, dram_bandwidth_gb_per_s: 25, dram_latency_us: 7}"});
  const models::KvTierConfig& c = s.scheduler.kv_tier;
  EXPECT_EQ(c.capacity_blocks, 2048u);
  EXPECT_EQ(c.bytes_per_block, 2'097'152);
  EXPECT_EQ(c.bandwidth_bytes_per_s, 25e9);
  EXPECT_EQ(c.latency, 7'000);
  EXPECT_EQ(c.offload, models::OffloadRule::kOnEvict);
}

void ExpectRejected(const std::string& tiers, const std::vector<std::string>& fragments) {
  try {
    Small({"cluster.kv_tiers=" + tiers});
    ADD_FAILURE() << tiers << " was accepted";
  } catch (const ScenarioError& e) {
    for (const std::string& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
}

TEST(KvTiersTest, BadKeysAreRejected) {
  ExpectRejected("{dram_gb: 4}", {"cluster.kv_tiers.dram_gb", "unknown key", "dram_gib"});
  ExpectRejected("{offload: on_evict}", {"cluster.kv_tiers.dram_gib"});
  ExpectRejected("{dram_gib: -1}", {"cluster.kv_tiers.dram_gib", "must be in"});
  ExpectRejected("{dram_gib: 0.001}", {"cluster.kv_tiers.dram_gib", "holds no KV block", "2 MiB"});
  ExpectRejected("{dram_gib: 4, offload: on_evic}",
                 {"cluster.kv_tiers.offload", "did you mean 'on_evict'?"});
  ExpectRejected("{dram_gib: 4, dram_bandwidth_gb_per_s: 0}",
                 {"cluster.kv_tiers.dram_bandwidth_gb_per_s", "must be in"});
  ExpectRejected("{dram_gib: 4, dram_latency_us: -3}",
                 {"cluster.kv_tiers.dram_latency_us", "must be in"});
  ExpectRejected("4", {"cluster.kv_tiers"});
}

}  // namespace
}  // namespace kvroute::sim
