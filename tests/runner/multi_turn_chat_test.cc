// inference-perf's multi-turn chat (workload.shared_prefix.enable_multi_turn_chat)
// end to end through the cluster simulation (models/shared_prefix_chat.h,
// sim/runner/arrival_driver.h): when rounds go out, what they hit, and what
// stays paired between policies.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/request_record.h"
#include "models/shared_prefix_source.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"
#include "tests/runner/request_log.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

using Record = analysis::RequestRecord;
constexpr uint32_t kSystem = 200, kQuestion = 50, kOutput = 40;

Scenario LoadChat(const std::string& shared_prefix, const std::string& rest = "",
                  const std::string& policies = "[round_robin]", int replicas = 1) {
  return LoadTestScenario(
      {.name = "chat",
       .drain_s = 900,
       .replicas = replicas,
       .workload = R"(  shared_prefix: {system_tokens: 200, question_tokens: 50, output_tokens: 40,
                  enable_multi_turn_chat: true, )" +
                   shared_prefix + "}\n" + rest,
       .policies = policies,
       .qps = 3});
}

Records SimulateChat(const Scenario& s, uint32_t policy = 0, double qps = 3) {
  Records records;
  RunPoint(s, PointSpec{policy, qps, 1}, &records);
  return records;
}

std::vector<Record> ByArrival(std::vector<Record> all) {
  std::stable_sort(all.begin(), all.end(),
                   [](const Record& a, const Record& b) { return a.arrival < b.arrival; });
  return all;
}

// One user: round k is due at the k-th Poisson time and goes out then, or
// when round k - 1 completes if that is later. Each round re-sends the
// conversation, which it finds in the cache.
TEST(MultiTurnChatTest, ARoundGoesOutWhenDueOrWhenThePreviousOneCompletes) {
  const Scenario s = LoadChat("groups: 1, prompts_per_group: 1");
  const std::vector<Record> rounds = ByArrival(SimulateChat(s).all);
  // The times the rounds are due: the workload's own arrival stream.
  models::SharedPrefixSource source(s.workload, 1, 3, FromSeconds(s.duration_s));
  std::vector<Time> due;
  for (Time t; source.NextArrival(&t);) due.push_back(t);
  ASSERT_EQ(rounds.size(), due.size());  // every round due before the end is sent
  ASSERT_GT(rounds.size(), 120u);
  int waited = 0, on_time = 0;
  for (size_t k = 0; k < rounds.size(); ++k) {
    const Record& r = rounds[k];
    ASSERT_EQ(r.outcome, Record::Outcome::kCompleted);
    EXPECT_EQ(r.session, 0u);
    EXPECT_EQ(r.prompt_tokens, (k + 1) * (kSystem + kQuestion) + k * kOutput);
    if (k == 0) {
      EXPECT_EQ(r.arrival, due[0]);
      continue;
    }
    const Record& previous = rounds[k - 1];
    EXPECT_EQ(r.arrival, std::max(due[k], previous.completed)) << "round " << k;
    (due[k] < previous.completed ? waited : on_time)++;
    // Everything but the last output token's KV (sampled, never fed back).
    const uint32_t earlier = (previous.prompt_tokens + previous.output_tokens - 1) / 16 * 16;
    EXPECT_GE(r.hit_tokens, earlier) << "round " << k;
  }
  EXPECT_GT(waited, 10);  // both cases happen
  EXPECT_GT(on_time, 10);
}

// Closed-loop clients: the k-th request (whichever client sends it) is the
// next round of user order[k mod U]; with one user and two clients, each
// client's round waits for the other's, and goes out the instant it
// completes.
TEST(MultiTurnChatTest, ClosedLoopClientsWaitForTheirUsersPreviousRound) {
  const Scenario s =
      LoadChat("groups: 1, prompts_per_group: 1", "  arrivals: {kind: closed_loop, clients: 2}\n");
  const std::vector<Record> rounds = ByArrival(SimulateChat(s).all);
  ASSERT_GT(rounds.size(), 50u);
  std::map<uint32_t, int> per_client;
  for (size_t k = 1; k < rounds.size(); ++k) {
    EXPECT_EQ(rounds[k].arrival, rounds[k - 1].completed) << k;
    EXPECT_NE(rounds[k].client, rounds[k - 1].client) << k;
    EXPECT_EQ(rounds[k].prompt_tokens, (k + 1) * (kSystem + kQuestion) + k * kOutput);
    ++per_client[rounds[k].client];
  }
  EXPECT_EQ(per_client.size(), 2u);
}

// Common random numbers: two policies with different timing send every user
// the same rounds (count, key and lengths), though not at the same times.
TEST(MultiTurnChatTest, TwoPoliciesSeeIdenticalRounds) {
  const Scenario s =
      LoadChat("groups: 3, prompts_per_group: 4", "", "[round_robin, least_loaded]", 3);
  using Round = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
  std::map<uint64_t, std::vector<Round>> seen[2];
  std::map<uint64_t, std::vector<Time>> times[2];
  for (uint32_t p = 0; p < 2; ++p) {
    for (const Record& r : ByArrival(SimulateChat(s, p, 40).all)) {
      ASSERT_EQ(r.outcome, Record::Outcome::kCompleted);
      seen[p][r.session].emplace_back(r.key, r.tenant, r.prompt_tokens, r.output_tokens);
      times[p][r.session].push_back(r.arrival);
    }
  }
  EXPECT_EQ(seen[0].size(), 12u);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_NE(times[0], times[1]);
  size_t rounds = 0;
  for (const auto& [user, r] : seen[0]) rounds += r.size();
  EXPECT_GT(rounds, 1500u);
}

// Same scenario and seed: bit-identical records.
TEST(MultiTurnChatTest, Deterministic) {
  const Scenario s = LoadChat("groups: 2, prompts_per_group: 3", "", "[least_loaded]", 2);
  const Records a = SimulateChat(s, 0, 20), b = SimulateChat(s, 0, 20);
  ASSERT_EQ(a.all.size(), b.all.size());
  for (size_t i = 0; i < a.all.size(); ++i) {
    EXPECT_EQ(a.all[i].id, b.all[i].id);
    EXPECT_EQ(a.all[i].session, b.all[i].session);
    EXPECT_EQ(a.all[i].arrival, b.all[i].arrival);
    EXPECT_EQ(a.all[i].completed, b.all[i].completed);
    EXPECT_EQ(a.all[i].replica, b.all[i].replica);
    EXPECT_EQ(a.all[i].hit_tokens, b.all[i].hit_tokens);
  }
}

// LoadChat stages: each stage sends its count, every conversation starts over
// (inference-perf clears its user sessions between stages), and the next
// stage waits for the rounds still waiting for their users.
TEST(MultiTurnChatTest, EachStageStartsTheConversationsOver) {
  Scenario s = LoadChat("groups: 1, prompts_per_group: 2");
  s.workload.stages = {{20, 5, 0}, {20, 5, 0}};
  const std::vector<Record> all = ByArrival(SimulateChat(s).all);
  std::vector<Record> stage[2];
  for (const Record& r : all) stage[r.stage].push_back(r);
  ASSERT_EQ(stage[0].size(), 100u);
  ASSERT_EQ(stage[1].size(), 100u);
  Time drained = 0;
  for (const Record& r : stage[0]) drained = std::max(drained, r.completed);
  EXPECT_GE(stage[1].front().arrival, drained + FromSeconds(s.workload.stage_gap_s));
  for (const std::vector<Record>& st : stage) {
    std::map<uint64_t, uint32_t> rounds;
    for (const Record& r : st) {
      const uint32_t k = rounds[r.session]++;
      EXPECT_EQ(r.prompt_tokens, (k + 1) * (kSystem + kQuestion) + k * kOutput);
    }
    EXPECT_EQ(rounds.size(), 2u);
  }
}

TEST(MultiTurnChatTest, KeyIsValidatedAndPrinted) {
  const Scenario s = LoadChat("groups: 2, prompts_per_group: 3");
  EXPECT_TRUE(s.workload.shared_prefix.multi_turn_chat);
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_NE(printed.find("enable_multi_turn_chat: true"), std::string::npos) << printed;
  EXPECT_EQ(ResolvedScenarioYaml(LoadScenarioText(printed, "printed", {}, "/")), printed);
  auto error = [](const std::string& shared_prefix) -> std::string {
    try {
      LoadChat(shared_prefix);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no error)";
  };
  std::string e = error("groups: 2, enable_multi_turn_chat: sometimes");
  EXPECT_NE(e.find("chat.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("workload.shared_prefix.enable_multi_turn_chat"), std::string::npos) << e;
  e = error("groups: 1000, prompts_per_group: 1001");
  EXPECT_NE(e.find("key 'workload.shared_prefix.prompts_per_group'"), std::string::npos) << e;
  EXPECT_NE(e.find("more than 1000000 users with multi-turn chat"), std::string::npos) << e;
}

}  // namespace
}  // namespace kvroute::sim
