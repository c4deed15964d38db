// A trace's sessions as the arrival driver runs them closed loop
// (models/trace_sessions.h): sessions in order of their first turn, gaps by
// value, and requests identical to the open-loop replay's.
#include "models/trace_sessions.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/trace_replay.h"

namespace kvroute::models {
namespace {

std::shared_ptr<const Trace> ReadText(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return std::make_shared<const Trace>(
      ReadTrace({.format = TraceConfig::Format::kKvroute, .file = path, .block_tokens = 32}));
}

// Two interleaved sessions and a request of its own, replayed at twice the
// trace's rate: times and gaps halve.
TEST(TraceSessionPlanTest, SessionsInOrderOfFirstTurnWithTheReplaysTimesAndRequests) {
  const auto trace = ReadText("plan.csv",
                              "time_s,prompt_tokens,output_tokens,session,hash_ids\n"
                              "0,100,10,x,1 2 3\n"
                              "2,50,5,y,7\n"
                              "4,140,10,x,1 2 3 4\n"
                              "6,60,5,,\n"
                              "8,90,5,y,7 8\n");
  const double qps = 2 * NativeQps(*trace);
  TraceReplay replay(trace, /*loop=*/false, qps, sim::kNever, 16);
  TraceSessionPlan plan(replay, 16);
  ASSERT_EQ(plan.sessions(), 3u);
  EXPECT_EQ(plan.Start(0), sim::FromSeconds(0));
  EXPECT_EQ(plan.Start(1), sim::FromSeconds(1));
  EXPECT_EQ(plan.Start(2), sim::FromSeconds(3));
  EXPECT_EQ(plan.Start(3), sim::kNever);  // no loop: no second pass

  // The open-loop replay's requests, by record.
  std::vector<Request> open(5);
  for (Request& r : open) ASSERT_TRUE(replay.Next(&r));
  const std::map<uint64_t, std::vector<size_t>> records{{0, {0, 2}}, {1, {1, 4}}, {2, {3}}};
  const std::map<uint64_t, std::vector<double>> gaps{{0, {0, 2}}, {1, {0, 3}}, {2, {0}}};
  for (uint64_t id = 0; id < 3; ++id) {
    Session s;
    plan.Draw(id, &s);
    ASSERT_EQ(s.steps.size(), records.at(id).size());
    for (size_t k = 0; k < s.steps.size(); ++k) {
      EXPECT_TRUE(s.steps[k].gap_from_sent);
      EXPECT_EQ(s.steps[k].trace_record, records.at(id)[k]);
      EXPECT_DOUBLE_EQ(s.steps[k].gap_s, gaps.at(id)[k]);
      Request r;
      const size_t record = records.at(id)[k];
      plan.Emit(&s, record, /*arrival=*/0, &r);  // the replay's id: the record's index here
      EXPECT_EQ(r.session, open[record].session);
      EXPECT_EQ(r.key, open[record].key);
      EXPECT_EQ(r.prompt_tokens, open[record].prompt_tokens);
      EXPECT_EQ(r.output_tokens, open[record].output_tokens);
      EXPECT_EQ(r.hashes.prompt(), open[record].hashes.prompt());
      EXPECT_EQ(r.hashes.output(), open[record].hashes.output());
    }
    EXPECT_TRUE(s.done());
  }
  // The next turn: the gap after the sending, or the response if later.
  Session s;
  plan.Draw(0, &s);
  s.next = 1;
  s.sent = sim::FromSeconds(10);
  EXPECT_EQ(s.NextSend(sim::FromSeconds(10.5)), sim::FromSeconds(12));
  EXPECT_EQ(s.NextSend(sim::FromSeconds(13)), sim::FromSeconds(13));
}

// Looped, pass p's sessions follow one period later; turns past the end are
// not part of the session.
TEST(TraceSessionPlanTest, LoopedPassesAndTheEnd) {
  const auto trace = ReadText("loop.csv",
                              "time_s,prompt_tokens,output_tokens,session\n"
                              "0,100,10,x\n"
                              "3,50,5,x\n");
  // Period: 3 s span + one mean gap of 3 s.
  TraceReplay replay(trace, /*loop=*/true, NativeQps(*trace), sim::FromSeconds(8), 16);
  TraceSessionPlan plan(replay, 16);
  EXPECT_EQ(plan.Start(1), sim::FromSeconds(6));
  EXPECT_EQ(plan.Start(2), sim::kNever);
  Session s;
  plan.Draw(1, &s);
  EXPECT_EQ(s.steps.size(), 1u);  // its second turn would be at 9 s
}

// A Mooncake turn given a `delay` goes out that long (scaled with the
// trace) after the previous turn's response, however late that is.
TEST(TraceSessionPlanTest, DelayedTurnsWaitTheirDelayAfterTheResponse) {
  const std::string path = testing::TempDir() + "delayed_plan.jsonl";
  std::ofstream(path, std::ios::binary)
      << R"({"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2], "session_id": "a"}
{"session_id": "a", "delay": 4000, "input_length": 700, "output_length": 10, "hash_ids": [1, 2]}
{"session_id": "a", "timestamp": 6000, "input_length": 800, "output_length": 10, "hash_ids": [1, 2]}
)";
  const auto trace = std::make_shared<const Trace>(
      ReadTrace({.format = TraceConfig::Format::kMooncake, .file = path, .closed_loop = true}));
  // Span 6 s, mean gap 3 s: a period of 9 s; at twice the rate, times halve.
  TraceReplay replay(trace, /*loop=*/false, 2 * NativeQps(*trace), sim::kNever, 16);
  TraceSessionPlan plan(replay, 16);
  ASSERT_EQ(plan.sessions(), 1u);
  Session s;
  plan.Draw(0, &s);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_FALSE(s.steps[1].gap_from_sent);
  EXPECT_DOUBLE_EQ(s.steps[1].gap_s, 2.0);
  EXPECT_TRUE(s.steps[2].gap_from_sent);
  EXPECT_DOUBLE_EQ(s.steps[2].gap_s, 1.0);
  // Turn 1 waits 2 s after turn 0's response, at 0.5 s or at 30 s.
  s.next = 1;
  s.sent = 0;
  EXPECT_EQ(s.NextSend(sim::FromSeconds(0.5)), sim::FromSeconds(2.5));
  EXPECT_EQ(s.NextSend(sim::FromSeconds(30)), sim::FromSeconds(32));
  // Turn 2 is timed: 1 s after turn 1 went out, or its response if later.
  s.next = 2;
  s.sent = sim::FromSeconds(2.5);
  EXPECT_EQ(s.NextSend(sim::FromSeconds(3)), sim::FromSeconds(3.5));
  EXPECT_EQ(s.NextSend(sim::FromSeconds(4)), sim::FromSeconds(4));
}

}  // namespace
}  // namespace kvroute::models
