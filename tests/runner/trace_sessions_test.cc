// Closed-loop replay of a trace's sessions (workload.trace.pacing:
// closed_loop, models/trace_sessions.h) end to end: a session's turn goes
// out at its timestamp's gap after the previous turn was sent, or when that
// turn completes if later; the open-loop default is unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/request_record.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "sim/runner/scenario_printer.h"
#include "tests/runner/request_log.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

using Record = analysis::RequestRecord;

// Session a thinks for 10 s, far longer than its turns take. Session b's
// second turn was sent 1 ms after its first, before an 800-token answer
// could have come back; its third 5 s after its second. A request without a
// session stands alone. Blocks of 256 tokens: each turn of b repeats the
// previous turn's blocks.
const char kTrace[] = R"(time_s,prompt_tokens,output_tokens,session,hash_ids
0,512,64,a,1 2
0.5,2000,800,b,10 11 12 13 14 15 16 17
0.501,2100,50,b,10 11 12 13 14 15 16 17 18
5.501,2200,50,b,10 11 12 13 14 15 16 17 18
10,600,64,a,1 2 3
20,700,64,a,1 2 3
20.1,300,20,,
)";

Scenario LoadTraceSessions(const std::string& pacing, const std::string& file = "t.csv",
                           const std::string& trace = kTrace) {
  const TestDirectory dir("trace_sessions");
  dir.Write(file, trace);
  return dir.Load(ScenarioText(
      {.name = "trace_sessions",
       .workload = "  trace: {file: " + file + ", block_tokens: 256, timing: native" + pacing + "}",
       .policies = "[round_robin, least_loaded]",
       .qps = 0}));
}

// Per session (in the order of their first turn), its requests in the order
// they were sent.
std::vector<std::vector<Record>> Sessions(const Scenario& s, uint32_t policy = 0) {
  Records r;
  RunPoint(s, PointSpec{policy, s.qps.at(0), 1}, &r);
  std::sort(r.all.begin(), r.all.end(),
            [](const Record& x, const Record& y) { return x.arrival < y.arrival; });
  std::vector<std::vector<Record>> sessions;
  std::map<uint64_t, size_t> index;
  for (const Record& rec : r.all) {
    EXPECT_EQ(rec.outcome, Record::Outcome::kCompleted);
    auto [it, added] = index.try_emplace(rec.session, sessions.size());
    if (added) sessions.emplace_back();
    sessions[it->second].push_back(rec);
  }
  return sessions;
}

TEST(TraceSessionsTest, TurnsWaitForThePreviousResponse) {
  const Scenario s = LoadTraceSessions(", pacing: closed_loop");
  ASSERT_TRUE(s.workload.trace.closed_loop);
  const auto sessions = Sessions(s);
  ASSERT_EQ(sessions.size(), 3u);
  const std::vector<Record>&a = sessions[0], &b = sessions[1], &alone = sessions[2];
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  ASSERT_EQ(alone.size(), 1u);
  // a's turns complete long before their next one is due: its timestamps.
  EXPECT_EQ(a[0].arrival, FromSeconds(0));
  EXPECT_EQ(a[1].arrival, FromSeconds(10));
  EXPECT_EQ(a[2].arrival, FromSeconds(20));
  EXPECT_EQ(alone[0].arrival, FromSeconds(20.1));
  // b's second turn waits for the first's 800-token response ...
  EXPECT_EQ(b[0].arrival, FromSeconds(0.5));
  EXPECT_GT(b[0].completed, FromSeconds(0.501));
  EXPECT_EQ(b[1].arrival, b[0].completed);
  // ... and the third keeps the trace's 5 s after the second was sent, so
  // the delay carries over to the rest of the session.
  EXPECT_LT(b[1].completed, b[1].arrival + FromSeconds(5));
  EXPECT_EQ(b[2].arrival, b[1].arrival + FromSeconds(5));
  EXPECT_GT(b[2].arrival, FromSeconds(5.501));
  // Sent after the first turn's response, the second finds its 7 full
  // blocks of 256 tokens in the cache.
  EXPECT_GE(b[1].hit_tokens, 7u * 256);
  EXPECT_EQ(b[1].prompt_tokens, 2100u);
  EXPECT_EQ(b[2].prompt_tokens, 2200u);
}

// A Mooncake turn given a `delay` goes out that long after the previous
// turn's response, however long the response took.
TEST(TraceSessionsTest, DelayedTurnsGoOutTheirDelayAfterTheResponse) {
  const char delayed[] =
      R"({"timestamp": 0, "input_length": 2000, "output_length": 800, "hash_ids": [1, 2, 3], "session_id": "c"}
{"session_id": "c", "delay": 1500, "input_length": 2100, "output_length": 20, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 100, "input_length": 300, "output_length": 20, "hash_ids": [9]}
)";
  const Scenario s = LoadTraceSessions(", pacing: closed_loop", "t.jsonl", delayed);
  const auto sessions = Sessions(s);
  ASSERT_EQ(sessions.size(), 2u);
  const std::vector<Record>& c = sessions[0];
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].arrival, FromSeconds(0));
  EXPECT_GT(c[0].completed, FromSeconds(1));  // 800 tokens take longer than a second
  EXPECT_EQ(c[1].arrival, c[0].completed + FromSeconds(1.5));
  EXPECT_EQ(sessions[1][0].arrival, FromSeconds(0.1));
  // Open loop has no response to count from: an error naming the field.
  try {
    LoadTraceSessions("", "t.jsonl", delayed);
    ADD_FAILURE() << "open-loop replay of a delayed turn was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("t.jsonl:2: field 'delay'"), std::string::npos)
        << e.what();
  }
}

// Open loop (the default): every turn at its timestamp, whatever the
// cluster did; the same requests as closed loop.
TEST(TraceSessionsTest, OpenLoopSendsEveryTurnAtItsTimestamp) {
  const Scenario open = LoadTraceSessions("");
  EXPECT_FALSE(open.workload.trace.closed_loop);
  const auto sessions = Sessions(open);
  ASSERT_EQ(sessions.size(), 3u);
  const std::vector<Record>& b = sessions[1];
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].arrival, FromSeconds(0.501));
  EXPECT_EQ(b[2].arrival, FromSeconds(5.501));
  EXPECT_LT(b[1].arrival, b[0].completed);
  using Request = std::tuple<uint64_t, uint32_t, uint32_t, uint32_t, uint32_t>;
  auto requests = [](const std::vector<std::vector<Record>>& all) {
    std::vector<Request> out;
    for (const auto& session : all) {
      for (const Record& r : session) {
        out.emplace_back(r.session, r.key, r.tenant, r.prompt_tokens, r.output_tokens);
      }
    }
    return out;
  };
  EXPECT_EQ(requests(sessions), requests(Sessions(LoadTraceSessions(", pacing: closed_loop"))));
  // Looped, each pass's sessions start one trace period later.
  auto sorted = [&](const std::string& pacing) {
    std::vector<Request> all = requests(Sessions(LoadTraceSessions(", loop: true" + pacing)));
    std::sort(all.begin(), all.end());
    return all;
  };
  const std::vector<Request> looped = sorted("");
  EXPECT_EQ(looped.size(), 7u * 2 + 5);  // 23.45 s a pass: the third from 46.9 s to 56.9 s
  EXPECT_EQ(sorted(", pacing: closed_loop"), looped);
}

// Same scenario, same records; two policies send the same turns.
TEST(TraceSessionsTest, DeterministicAndPaired) {
  const Scenario s = LoadTraceSessions(", pacing: closed_loop");
  const auto x = Sessions(s), y = Sessions(s), z = Sessions(s, 1);
  ASSERT_EQ(x.size(), y.size());
  ASSERT_EQ(x.size(), z.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(x[i].size(), y[i].size());
    ASSERT_EQ(x[i].size(), z[i].size());
    for (size_t k = 0; k < x[i].size(); ++k) {
      EXPECT_EQ(x[i][k].arrival, y[i][k].arrival);
      EXPECT_EQ(x[i][k].completed, y[i][k].completed);
      EXPECT_EQ(x[i][k].hit_tokens, y[i][k].hit_tokens);
      EXPECT_EQ(x[i][k].session, z[i][k].session);
      EXPECT_EQ(x[i][k].prompt_tokens, z[i][k].prompt_tokens);
    }
  }
}

TEST(TraceSessionsTest, PacingIsValidatedAndPrinted) {
  const Scenario s = LoadTraceSessions(", pacing: closed_loop");
  const std::string printed = ResolvedScenarioYaml(s);
  EXPECT_NE(printed.find("pacing: closed_loop"), std::string::npos) << printed;
  EXPECT_EQ(ResolvedScenarioYaml(LoadScenarioText(printed, "printed", {}, "/")), printed);
  EXPECT_EQ(ResolvedScenarioYaml(LoadTraceSessions("")).find("pacing"), std::string::npos);
  try {
    LoadTraceSessions(", pacing: closed");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("s.yaml:"), std::string::npos) << what;
    EXPECT_NE(what.find("'workload.trace.pacing'"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace kvroute::sim
