// Closed-loop sessions and agent loops end to end through the cluster
// simulation (sim/runner/arrival_driver.h, models/session_plan.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/request_record.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/request_log.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

using Record = analysis::RequestRecord;

Scenario LoadSessions(const std::string& workload, const std::string& policies = "[round_robin]",
                      int replicas = 1) {
  return LoadTestScenario({.name = "sessions",
                           .duration_s = 120,
                           .replicas = replicas,
                           .workload = R"(  keys: 8
  prompt: {system_tokens: 256, new_tokens: {kind: uniform, min: 16, max: 200}}
  output_tokens: {kind: uniform, min: 20, max: 120}
)" + workload,
                           .policies = policies});
}

// Per session, its requests in the order they were sent.
std::map<uint64_t, std::vector<Record>> BySession(const Records& r) {
  std::map<uint64_t, std::vector<Record>> sessions;
  for (const Record& rec : r.all) sessions[rec.session].push_back(rec);
  for (auto& [id, recs] : sessions) {
    std::sort(recs.begin(), recs.end(),
              [](const Record& a, const Record& b) { return a.arrival < b.arrival; });
  }
  return sessions;
}

Records SimulateSessions(const Scenario& s, uint32_t policy = 0, double qps = 2) {
  Records records;
  RunPoint(s, PointSpec{policy, qps, 1}, &records);
  return records;
}

// One client, three-turn sessions: each turn waits think time after the
// previous response, and its prompt hits the previous prompt and output in
// the cache (generated tokens are cached, as in vLLM v1).
TEST(ClosedLoopSessionTest, TurnsWaitForResponsesAndHitEarlierOutputs) {
  Scenario s = LoadSessions(R"(  sessions: {turns: 3, think_time_s: 2.5}
  arrivals: {kind: closed_loop, clients: 1, think_time_s: 7})");
  ASSERT_TRUE(s.workload.sessions.closed_loop);
  Records r = SimulateSessions(s);
  auto sessions = BySession(r);
  ASSERT_GE(sessions.size(), 3u);
  int checked = 0;
  for (const auto& [id, turns] : sessions) {
    for (size_t t = 1; t < turns.size(); ++t) {
      const Record &a = turns[t - 1], &b = turns[t];
      ASSERT_EQ(a.outcome, Record::Outcome::kCompleted);
      EXPECT_EQ(b.arrival - a.completed, FromSeconds(2.5));
      EXPECT_EQ(b.key, a.key);
      // The last output token's KV is never computed (it is sampled, not fed
      // back), so the cached blocks end one token short.
      const uint32_t earlier_blocks = (a.prompt_tokens + a.output_tokens - 1) / 16;
      EXPECT_GE(b.hit_tokens, earlier_blocks * 16) << "session " << id << " turn " << t;
      ++checked;
    }
    EXPECT_LE(turns.size(), 3u);
  }
  EXPECT_GE(checked, 4);
  // Between one session's last turn and the client's next session: the
  // client's think time.
  std::vector<Record> all = r.all;
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; });
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i].session != all[i - 1].session) {
      EXPECT_EQ(all[i].arrival - all[i - 1].completed, FromSeconds(7));
    }
  }
}

// Agent loops: each tool call's request goes out the tool's latency after
// the model's response, its prompt grown by that response and the tool's
// output.
TEST(ClosedLoopSessionTest, ToolCallsWaitForTheToolsLatency) {
  Scenario s = LoadSessions(R"(  sessions:
    turns: 1
    pacing: closed_loop
    agent: {tool_calls: 3, tool_output_tokens: 400, tool_latency_s: 0.75})");
  Records r = SimulateSessions(s, 0, 1);
  auto sessions = BySession(r);
  ASSERT_GT(sessions.size(), 10u);
  int tools = 0;
  for (const auto& [id, steps] : sessions) {
    EXPECT_LE(steps.size(), 4u);
    for (size_t i = 1; i < steps.size(); ++i) {
      EXPECT_EQ(steps[i].arrival - steps[i - 1].completed, FromSeconds(0.75));
      EXPECT_EQ(steps[i].prompt_tokens,
                steps[i - 1].prompt_tokens + steps[i - 1].output_tokens + 400);
      ++tools;
    }
  }
  EXPECT_GT(tools, 30);
}

// Common random numbers: two policies (different timing) start the same
// sessions, and every session sends the same requests in the same order.
void ExpectTwoPoliciesSeeIdenticalSessions(const std::string& agent) {
  Scenario s = LoadSessions(R"(  sessions:
    turns: {kind: uniform, min: 1, max: 5}
    think_time_s: {kind: lognormal, median: 1, sigma: 1}
    pacing: closed_loop
    agent: )" + agent,
                            "[round_robin, least_loaded]", 3);
  using Step = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
  std::map<uint64_t, std::vector<Step>> seen[2];
  std::map<uint64_t, std::vector<Time>> times[2];
  for (uint32_t p = 0; p < 2; ++p) {
    for (const auto& [id, steps] : BySession(SimulateSessions(s, p, 6))) {
      for (const Record& rec : steps) {
        seen[p][id].emplace_back(rec.key, rec.tenant, rec.prompt_tokens, rec.output_tokens);
        times[p][id].push_back(rec.arrival);
      }
    }
  }
  ASSERT_EQ(seen[0].size(), seen[1].size());
  ASSERT_GT(seen[0].size(), 100u);
  int retimed = 0;
  for (const auto& [id, steps] : seen[0]) {
    const auto& other = seen[1].at(id);
    const size_t n = std::min(steps.size(), other.size());
    EXPECT_TRUE(std::equal(steps.begin(), steps.begin() + n, other.begin())) << id;
    EXPECT_EQ(times[0][id][0], times[1][id][0]);  // open-loop session starts
    retimed += times[0][id] != times[1][id];
  }
  EXPECT_GT(retimed, 10);  // the policies' timing did differ
}

TEST(ClosedLoopSessionTest, TwoPoliciesSeeIdenticalSessions) {
  ExpectTwoPoliciesSeeIdenticalSessions(
      "{tool_calls: {kind: uniform, min: 0, max: 2}, tool_latency_s: 0.3}");
}

// Parallel tool calls draw their count, outputs and latencies from the
// session's stream too, so the pairing holds with them on.
TEST(ClosedLoopSessionTest, TwoPoliciesSeeIdenticalSessionsWithParallelCalls) {
  ExpectTwoPoliciesSeeIdenticalSessions(
      "{tool_calls: {kind: uniform, min: 0, max: 2}, parallel_calls: {kind: uniform, min: 1, "
      "max: 4}, tool_output_tokens: {kind: uniform, min: 10, max: 300}, tool_latency_s: "
      "{kind: exponential, mean: 0.5}}");
}

// Closed-loop clients running sessions stop at the request budget, across
// sessions.
TEST(ClosedLoopSessionTest, ClientsStopAtTheirRequestBudget) {
  Scenario s = LoadSessions(R"(  sessions: {turns: 4, think_time_s: 0.5}
  arrivals: {kind: closed_loop, clients: 3, max_requests: 25})");
  EXPECT_EQ(SimulateSessions(s).all.size(), 25u);
}

// A request that fails ends its session: the user does not send the next
// turn.
TEST(ClosedLoopSessionTest, AFailedRequestEndsItsSession) {
  Scenario s = LoadSessions(R"(  sessions: {turns: 6, think_time_s: 1, pacing: closed_loop}
failures:
  retry_limit: 0
  schedule: [{replica: 0, at_s: 20}])",
                            "[round_robin]", 2);
  auto sessions = BySession(SimulateSessions(s, 0, 6));
  int failed = 0;
  for (const auto& [id, turns] : sessions) {
    for (size_t t = 0; t < turns.size(); ++t) {
      if (turns[t].outcome != Record::Outcome::kFailed) continue;
      ++failed;
      EXPECT_EQ(t + 1, turns.size()) << "session " << id << " went on after a failure";
    }
  }
  EXPECT_GT(failed, 0);
}

TEST(ClosedLoopSessionTest, AgentLoopsNeedClosedLoopPacing) {
  try {
    LoadSessions("  sessions: {turns: 2, agent: {tool_calls: 2}}");
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("pacing: closed_loop"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sessions.yaml:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LoadSessions("  sessions: {turns: 2, pacing: closed_loop, agent: {tool_cals: 2}}"),
               std::exception);
  EXPECT_THROW(LoadSessions("  sessions: {turns: 2, pacing: closed_loop}\n"
                            "  load_schedule: [{until_s: 10, factor: 2}]"),
               std::exception);
}

}  // namespace
}  // namespace kvroute::sim
