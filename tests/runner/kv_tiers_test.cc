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
#include "sim/runner/scenario_printer.h"

namespace kvroute::sim {
namespace {

constexpr char kDir[] = "tests/runner/kv_tiers_absent_golden/";

std::string ReadTierFile(const std::string& path) {
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
        "kv_load_s", "dram_dropped_blocks", "ssd_token_hit_rate", "ssd_store_bytes",
        "ssd_load_bytes", "ssd_load_s", "ssd_dropped_blocks", "kv_view_lookups",
        "kv_view_overestimated", "kv_view_underestimated", "kv_view_error_blocks",
        "billed_replicas", "usd", "fleet_changes"}) {
    const std::string key = std::string(",\"") + name + "\":";
    for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at)) {
      const size_t end = json.find_first_of(",}", at + key.size());
      json.erase(at, end - at);
    }
  }
  return json;
}

Scenario SmallTiered(const std::vector<std::string>& overrides = {}) {
  return LoadScenarioFile(std::string(kDir) + "small.yaml", overrides);
}

std::string Json(const Scenario& s, size_t policy) {
  return analysis::PointToJson(RunPoint(s, PointSpec{policy, 20, 1}), s.slos);
}

// The goldens are `kvroute point small.yaml --policy P --qps 20 --seed 1
// --json` from the version before cluster.kv_tiers existed, on a pool small
// enough to evict and preempt.
TEST(KvTiersTest, WithoutTheKeyAPointIsWhatItWasBefore) {
  const Scenario s = SmallTiered();
  ASSERT_EQ(s.policies.size(), 2u);
  for (size_t p = 0; p < 2; ++p) {
    const std::string golden = ReadTierFile(std::string(kDir) + s.policies[p].name + ".json");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(WithoutTierFields(Json(s, p)) + "\n", golden) << s.policies[p].name;
  }
}

TEST(KvTiersTest, NoDramIsNoTier) {
  const Scenario absent = SmallTiered();
  const Scenario zero = SmallTiered({"cluster.kv_tiers={dram_gib: 0, offload: write_through}"});
  EXPECT_FALSE(zero.scheduler.kv_tier.enabled());
  EXPECT_EQ(Json(zero, 1), Json(absent, 1));
}

TEST(KvTiersTest, ATierIsDeterministicAndServesWhatHbmLost) {
  for (const char* rule : {"on_evict", "write_through"}) {
    const Scenario s =
        SmallTiered({std::string("cluster.kv_tiers={dram_gib: 4, offload: ") + rule + "}"});
    const analysis::PointResult with = RunPoint(s, PointSpec{1, 20, 1});
    const analysis::PointResult without = RunPoint(SmallTiered(), PointSpec{1, 20, 1});
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

TEST(KvTiersTest, NoSsdIsNoSsdTier) {
  const Scenario dram = SmallTiered({"cluster.kv_tiers={dram_gib: 0.5}"});
  const Scenario zero = SmallTiered({"cluster.kv_tiers={dram_gib: 0.5, ssd_gib: 0}"});
  EXPECT_FALSE(zero.scheduler.ssd_tier.enabled());
  EXPECT_EQ(Json(zero, 1), Json(dram, 1));
  const analysis::PointResult r = RunPoint(dram, PointSpec{1, 20, 1});
  EXPECT_EQ(r.ssd_token_hit_rate, 0);
  EXPECT_EQ(r.ssd_store_bytes, 0);
  EXPECT_EQ(r.ssd_load_s, 0);
}

// 0.5 GiB of DRAM (256 blocks) cannot hold what 600 HBM blocks shed; 8 GiB
// of SSD below it can hold much of it.
TEST(KvTiersTest, AnSsdTierIsDeterministicAndServesWhatDramLost) {
  for (const char* rule : {"on_evict", "write_through"}) {
    const std::string tiers = std::string("cluster.kv_tiers={dram_gib: 0.5, offload: ") + rule;
    const Scenario s = SmallTiered({tiers + ", ssd_gib: 8}"});
    const analysis::PointResult with = RunPoint(s, PointSpec{1, 20, 1});
    const analysis::PointResult dram = RunPoint(SmallTiered({tiers + "}"}), PointSpec{1, 20, 1});
    EXPECT_EQ(analysis::PointToJson(with, s.slos), Json(s, 1)) << rule;
    EXPECT_GT(with.ssd_token_hit_rate, 0) << rule;
    EXPECT_GT(with.token_hit_rate, dram.token_hit_rate) << rule;
    EXPECT_LT(with.prefill_tokens_computed, dram.prefill_tokens_computed) << rule;
    EXPECT_NEAR(with.hbm_token_hit_rate + with.dram_token_hit_rate + with.ssd_token_hit_rate,
                with.token_hit_rate, 1e-12);
    EXPECT_GT(with.ssd_store_bytes, 0) << rule;
    EXPECT_GT(with.ssd_load_bytes, 0) << rule;
    // What SSD sends crosses the host link too, and its reads are part of
    // the time iterations waited for loads.
    EXPECT_GE(with.kv_load_bytes, with.ssd_load_bytes) << rule;
    EXPECT_GT(with.ssd_load_s, 0) << rule;
    EXPECT_LT(with.ssd_load_s, with.kv_load_s) << rule;
  }
}

// 4 GiB of Llama-3.1-8B bf16 blocks: 16 tokens x 131,072 bytes = 2 MiB each,
// so 2,048 blocks; TP1 moves them at the per-GPU rate.
TEST(KvTiersTest, SizesComeFromTheProfile) {
  const Scenario s = SmallTiered(
      {"cluster.kv_tiers={dram_gib: 4, dram_bandwidth_gb_per_s: 25, dram_latency_us: 7}"});
  const models::KvTierConfig& c = s.scheduler.kv_tier;
  EXPECT_EQ(c.capacity_blocks, 2048u);
  EXPECT_EQ(c.bytes_per_block, 2'097'152);
  EXPECT_EQ(c.bandwidth_bytes_per_s, 25e9);
  EXPECT_EQ(c.latency, 7'000);
  EXPECT_EQ(c.offload, models::OffloadRule::kOnEvict);
  EXPECT_FALSE(s.scheduler.ssd_tier.enabled());
}

// 8 GiB of SSD is 4,096 blocks of 2 MiB, read at 3 GB/s per GPU after 50 us.
TEST(KvTiersTest, SsdSizesComeFromTheProfile) {
  const Scenario s =
      SmallTiered({"cluster.kv_tiers={dram_gib: 4, offload: write_through, ssd_gib: 8, "
                   "ssd_bandwidth_gb_per_s: 3, ssd_latency_us: 50}"});
  const models::KvTierConfig& c = s.scheduler.ssd_tier;
  EXPECT_EQ(c.capacity_blocks, 4096u);
  EXPECT_EQ(c.bytes_per_block, 2'097'152);
  EXPECT_EQ(c.bandwidth_bytes_per_s, 3e9);
  EXPECT_EQ(c.latency, 50'000);
  EXPECT_EQ(c.offload, models::OffloadRule::kWriteThrough);
  // The defaults: 7 GB/s and 100 us (models/kv_tier.h says why).
  const Scenario d = SmallTiered({"cluster.kv_tiers={dram_gib: 4, ssd_gib: 8}"});
  EXPECT_EQ(d.scheduler.ssd_tier.bandwidth_bytes_per_s, 7e9);
  EXPECT_EQ(d.scheduler.ssd_tier.latency, 100'000);
}

// The resolved scenario a results file keeps names the SSD tier, so a rerun
// from it has the same tiers.
TEST(KvTiersTest, ThePrintedScenarioKeepsTheSsdTier) {
  const Scenario s =
      SmallTiered({"cluster.kv_tiers={dram_gib: 4, ssd_gib: 8, ssd_bandwidth_gb_per_s: 3, "
                   "ssd_latency_us: 50}"});
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_NE(printed.find("ssd_gib: 8"), std::string::npos) << printed;
  const Scenario reloaded = LoadScenarioText(printed, "printed", {}, "/");
  const models::KvTierConfig& c = reloaded.scheduler.ssd_tier;
  EXPECT_EQ(c.capacity_blocks, 4096u);
  EXPECT_EQ(c.bandwidth_bytes_per_s, 3e9);
  EXPECT_EQ(c.latency, 50'000);
  // Without an SSD tier, no SSD key is printed (it would be rejected).
  EXPECT_EQ(ResolvedScenarioYaml(SmallTiered({"cluster.kv_tiers={dram_gib: 4}"})).find("ssd_"),
            std::string::npos);
}

void ExpectRejected(const std::string& tiers, const std::vector<std::string>& fragments) {
  try {
    SmallTiered({"cluster.kv_tiers=" + tiers});
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

TEST(KvTiersTest, BadSsdKeysAreRejected) {
  // SSD is filled from DRAM and read through it: no SSD tier without one.
  ExpectRejected("{dram_gib: 0, ssd_gib: 8}", {"cluster.kv_tiers.ssd_gib", "needs a host tier"});
  ExpectRejected("{ssd_gib: 8}", {"cluster.kv_tiers.dram_gib", "required"});
  ExpectRejected("{dram_gib: 4, ssd_gb: 8}",
                 {"cluster.kv_tiers.ssd_gb", "unknown key", "did you mean 'ssd_gib'?"});
  ExpectRejected("{dram_gib: 4, ssd_gib: -1}", {"cluster.kv_tiers.ssd_gib", "must be in"});
  ExpectRejected("{dram_gib: 4, ssd_gib: 0.001}",
                 {"cluster.kv_tiers.ssd_gib", "holds no KV block", "2 MiB"});
  ExpectRejected("{dram_gib: 4, ssd_gib: 1e6}",
                 {"cluster.kv_tiers.ssd_gib", "more than the", "a tier may have"});
  ExpectRejected("{dram_gib: 4, ssd_gib: 8, ssd_bandwidth_gb_per_s: 0}",
                 {"cluster.kv_tiers.ssd_bandwidth_gb_per_s", "must be in"});
  ExpectRejected("{dram_gib: 4, ssd_gib: 8, ssd_latency_us: -1}",
                 {"cluster.kv_tiers.ssd_latency_us", "must be in"});
  // A rate or latency with no SSD tier to apply it to is a mistake, not a no-op.
  ExpectRejected("{dram_gib: 4, ssd_bandwidth_gb_per_s: 3}",
                 {"cluster.kv_tiers.ssd_bandwidth_gb_per_s", "is set but ssd_gib is not"});
}

}  // namespace
}  // namespace kvroute::sim
