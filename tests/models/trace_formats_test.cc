// The trace formats users bring (models/trace_reader.h): each parsed on a
// small hand-written file, told apart by its first line, and replayed with
// its sessions, tenants and shared blocks.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "models/trace_reader.h"
#include "models/trace_replay.h"

namespace kvroute::models {
namespace {

using Format = TraceConfig::Format;

std::string WriteTrace(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

Trace ReadAuto(const std::string& path, TraceConfig config = {}) {
  config.format = Format::kAuto;
  config.file = path;
  return ReadTrace(config);
}

std::string TraceErrorOf(const std::string& path, Format format = Format::kAuto) {
  try {
    ReadTrace({.format = format, .file = path});
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TraceFormatsTest, BurstGptKeepsModelsAsTenantsAndSkipsFailures) {
  const std::string path =
      WriteTrace("burst.csv",
                 "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                 "5,ChatGPT,472,18,490,Conversation log\n"
                 "45,ChatGPT,1087,0,1087,Conversation log\n"
                 "110.5,GPT-4,417,505,922,API log\n"
                 "111,ChatGPT,12,3,15,API log\n");
  EXPECT_EQ(DetectTraceFormat(path), Format::kBurstGpt);
  const Trace t = ReadAuto(path);
  EXPECT_EQ(t.format, Format::kBurstGpt);
  ASSERT_EQ(t.records.size(), 3u);  // the failed request (0 response tokens) is skipped
  EXPECT_EQ(t.records[1].time_ns, sim::FromSeconds(105.5));
  EXPECT_EQ(t.records[1].input_tokens, 417u);
  EXPECT_EQ(t.records[1].output_tokens, 505u);
  EXPECT_EQ(t.tenants, 2u);
  EXPECT_EQ(t.records[0].tenant, t.records[2].tenant);
  EXPECT_NE(t.records[0].tenant, t.records[1].tenant);
  EXPECT_EQ(t.keys, 3u);  // no prefix information: each its own key
}

TEST(TraceFormatsTest, BurstGptSessionIdsGroupTurns) {
  const std::string path = WriteTrace("burst_sessions.csv",
                                      "Timestamp,Model,Request tokens,Response tokens,Total "
                                      "tokens,Log Type,Session ID,Elapsed time\n"
                                      "0,ChatGPT,10,5,15,Conversation log,a,1\n"
                                      "1,ChatGPT,20,5,25,Conversation log,,1\n"
                                      "2,ChatGPT,30,5,35,Conversation log,a,1\n");
  const Trace t = ReadAuto(path);
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[0].session, t.records[2].session);
  EXPECT_EQ(t.records[0].key, t.records[2].key);
  EXPECT_EQ(t.records[1].session, TraceRecord::kNoSession);
  EXPECT_NE(t.records[1].key, t.records[0].key);
}

// Mooncake lines of replay tools with session ids: a session's turns share
// an id, as a string or a number.
TEST(TraceFormatsTest, MooncakeKeepsSessionIds) {
  const std::string path = WriteTrace(
      "sessions.jsonl",
      R"({"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2], "session_id": "chat-1"}
{"timestamp": 5, "input_length": 700, "output_length": 10, "hash_ids": [3, 4], "session_id": 7}
{"timestamp": 9, "input_length": 900, "output_length": 10, "hash_ids": [1, 2], "session_id": "chat-1"}
{"timestamp": 12, "input_length": 100, "output_length": 10, "hash_ids": [9]}
)");
  EXPECT_EQ(DetectTraceFormat(path), Format::kMooncake);
  const Trace t = ReadAuto(path);
  ASSERT_EQ(t.records.size(), 4u);
  EXPECT_EQ(t.records[0].session, t.records[2].session);
  EXPECT_NE(t.records[0].session, t.records[1].session);
  EXPECT_EQ(t.records[3].session, TraceRecord::kNoSession);
  auto shared = std::make_shared<const Trace>(t);
  TraceReplay replay(shared, false, NativeQps(t), sim::kNever, 16);
  Request r[4];
  for (Request& x : r) ASSERT_TRUE(replay.Next(&x));
  EXPECT_EQ(r[0].session, r[2].session);
  EXPECT_NE(r[0].session, r[1].session);
  EXPECT_NE(r[3].session, r[0].session);
}

// A later turn may give AIPerf's `delay` instead of a timestamp: it sits at
// its previous turn's time plus the delay, and the records are sorted by
// those times (keys renumbered in order of appearance).
TEST(TraceFormatsTest, MooncakeDelayedTurnsSitAfterTheirPreviousTurn) {
  const std::string path = WriteTrace(
      "delayed.jsonl",
      R"({"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1], "session_id": "a"}
{"session_id": "a", "delay": 5000, "input_length": 700, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 100, "output_length": 10, "hash_ids": [8], "session_id": "b"}
{"timestamp": 3000, "input_length": 100, "output_length": 10, "hash_ids": [9]}
{"session_id": "b", "delay": 500.5, "input_length": 900, "output_length": 10, "hash_ids": [8, 3]}
)");
  TraceConfig closed;
  closed.closed_loop = true;
  const Trace t = ReadAuto(path, closed);
  ASSERT_EQ(t.records.size(), 5u);
  // By time: a@0, b@1000, b's delayed turn @1500.5, the lone request @3000,
  // a's delayed turn @5000.
  const std::vector<int64_t> times = {0, 1000000000, 1500500000, 3000000000, 5000000000};
  const std::vector<int64_t> delays = {-1, -1, 500500000, -1, 5000000000};
  const std::vector<uint32_t> inputs = {600, 100, 900, 100, 700};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(t.records[i].time_ns, times[i]) << i;
    EXPECT_EQ(t.records[i].delay_ns, delays[i]) << i;
    EXPECT_EQ(t.records[i].input_tokens, inputs[i]) << i;
  }
  EXPECT_EQ(t.records[1].session, t.records[2].session);
  EXPECT_EQ(t.records[0].session, t.records[4].session);
  // Keys (first two block ids) in order of appearance after the sort.
  const std::vector<uint32_t> keys = {0, 1, 2, 3, 4};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(t.records[i].key, keys[i]) << i;
  EXPECT_EQ(t.hash_ids[t.records[4].hash_begin + 1], 2u);  // blocks travel with their record

  auto Error = [](const std::string& name, const std::string& text, bool closed_loop = true) {
    try {
      ReadTrace({.format = Format::kMooncake,
                 .file = WriteTrace(name, text),
                 .closed_loop = closed_loop});
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  // Turns after a first timed one of session "s": (file, later lines, closed loop, error).
  const std::string first =
      R"({"timestamp": 0, "input_length": 6, "output_length": 1, "hash_ids": [], "session_id": "s"})";
  const std::string rest = R"("input_length": 6, "output_length": 1, "hash_ids": []})";
  struct Case {
    const char* file;
    std::string lines;
    bool closed_loop;
    const char* error;
  };
  const Case cases[] = {
      {"open.jsonl", first + "\n" + R"({"session_id": "s", "delay": 5, )" + rest, false,
       "open.jsonl:2: field 'delay': a turn sent after its previous turn's response has no "
       "time of its own: only closed-loop replay (workload.trace.pacing: closed_loop) can send "
       "it"},
      {"both.jsonl", R"({"timestamp": 0, "delay": 5, "session_id": "s", )" + rest, true,
       "both.jsonl:1: field 'delay': given with a timestamp"},
      {"nosession.jsonl", first + "\n" + R"({"delay": 5, )" + rest, true,
       "nosession.jsonl:2: field 'delay': needs a session_id"},
      {"firstturn.jsonl", first + "\n" + R"({"session_id": "t", "delay": 5, )" + rest, true,
       "firstturn.jsonl:2: field 'delay': the session's first turn"},
      {"negative.jsonl", first + "\n" + R"({"session_id": "s", "delay": -1, )" + rest, true,
       "negative.jsonl:2: field 'delay': must be non-negative"},
      // A timed turn may not come before its session's delayed turn.
      {"order.jsonl",
       first + "\n" + R"({"session_id": "s", "delay": 50, )" + rest + "\n" +
           R"({"session_id": "s", "timestamp": 20, )" + rest,
       true, "order.jsonl:3: field 'timestamp': earlier than its session's previous turn"},
  };
  for (const Case& c : cases) {
    const std::string error = Error(c.file, c.lines, c.closed_loop);
    EXPECT_NE(error.find(c.error), std::string::npos) << c.file << ": " << error;
  }
}

TEST(TraceFormatsTest, KvrouteCsvNamesSessionsTenantsAndBlocks) {
  const std::string path = WriteTrace("mine.csv",
                                      "time_s,prompt_tokens,output_tokens,session,tenant,hash_ids\n"
                                      "100.0,40,8,s1,acme,1 2 3\n"
                                      "100.5,50,9,s2,,1 2 7 8\n"
                                      "101.25,70,4,s1,acme,1 2 3 4 5\n");
  EXPECT_EQ(DetectTraceFormat(path), Format::kKvroute);
  TraceConfig config;
  config.block_tokens = 16;
  const Trace t = ReadAuto(path, config);
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[2].time_ns, sim::FromSeconds(1.25));
  EXPECT_EQ(t.records[0].session, t.records[2].session);
  EXPECT_EQ(t.records[0].key, t.records[2].key);  // keyed by session
  EXPECT_NE(t.records[0].key, t.records[1].key);
  EXPECT_EQ(t.tenants, 2u);  // acme, and the requests without one
  EXPECT_EQ(t.records[0].tenant, t.records[2].tenant);
  EXPECT_NE(t.records[1].tenant, t.records[0].tenant);
  // Blocks of 16 tokens: the first two are shared by every request.
  auto shared = std::make_shared<const Trace>(t);
  TraceReplay replay(shared, false, NativeQps(t), sim::kNever, 16);
  Request r[3];
  for (Request& x : r) ASSERT_TRUE(replay.Next(&x));
  ASSERT_EQ(r[0].hashes.prompt().size(), 2u);  // 40 tokens: 2 full blocks
  EXPECT_EQ(r[1].hashes.prompt()[0], r[0].hashes.prompt()[0]);
  EXPECT_EQ(r[1].hashes.prompt()[1], r[0].hashes.prompt()[1]);
  ASSERT_EQ(r[1].hashes.prompt().size(), 3u);
  EXPECT_NE(r[1].hashes.prompt()[2], r[2].hashes.prompt()[2]);  // ids 7 and 3 differ
  EXPECT_EQ(replay.tenant_shares().size(), 2u);
}

TEST(TraceFormatsTest, KvrouteJsonlMatchesTheCsv) {
  const std::string path = WriteTrace(
      "mine.jsonl",
      R"({"time_s": 3, "prompt_tokens": 40, "output_tokens": 8, "session": "s1", "key": 5}
{"time_s": 4, "prompt_tokens": 10, "output_tokens": 2, "hash_ids": [4]}
{"output_tokens": 3, "prompt_tokens": 20, "time_s": 4.5, "key": 5}
)");
  EXPECT_EQ(DetectTraceFormat(path), Format::kKvroute);
  const Trace t = ReadAuto(path);
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_EQ(t.records[0].key, t.records[2].key);  // the key field wins over the session
  EXPECT_NE(t.records[1].key, t.records[0].key);
  EXPECT_EQ(t.records[2].time_ns, sim::FromSeconds(1.5));
  EXPECT_EQ(t.tenants, 0u);  // none named: a request's tenant is its key
}

TEST(TraceFormatsTest, BrokenFilesNameFileLineAndField) {
  struct Case {
    const char* name;
    const char* text;
    const char* expected;
  } cases[] = {
      {"u1.csv", "time,prompt_tokens\n1,2\n", "u1.csv:1: cannot tell the trace format"},
      {"u2.csv", "time_s,prompt_tokens,output_tokens,user\n1,2,3,x\n",
       "u2.csv:1: field 'user': unknown column (valid: time_s, prompt_tokens"},
      {"u3.csv", "time_s,prompt_tokens\n1,2\n",
       "u3.csv:1: field 'output_tokens': required column is missing"},
      {"u4.csv", "time_s,prompt_tokens,output_tokens\n1,2,3\n0.5,2,3\n",
       "u4.csv:3: field 'time_s': earlier than the previous request's"},
      {"u5.csv", "time_s,prompt_tokens,output_tokens\n1,0,3\n",
       "u5.csv:2: field 'prompt_tokens': expected a whole number in [1, "},
      {"u6.csv", "time_s,prompt_tokens,output_tokens,hash_ids\n1,20,3,1 2 3\n",
       "u6.csv:2: field 'hash_ids': more blocks of 16 tokens"},
      {"u7.jsonl", "{\"time_s\": 1, \"prompt_tokens\": 2, \"output_tokens\": 3, \"time_s\": 2}\n",
       "u7.jsonl:1: field 'time_s': given twice"},
      {"u8.jsonl", "{\"time_s\": 1, \"prompt_tokens\": 2}\n",
       "u8.jsonl:1: field 'output_tokens': required field is missing"},
      {"u9.csv",
       "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\nx,m,1,1,2,API log\n",
       "u9.csv:2: field 'Timestamp': expected a non-negative number of seconds, got 'x'"},
      {"u10.csv", "Timestamp,Model,Request tokens,Total tokens\n1,m,1,2\n",
       "u10.csv:1: field 'Response tokens': required column is missing"},
      {"u11.csv", "Timestamp,Model,Request tokens,Response tokens\n1,m,1\n",
       "u11.csv:2: expected 4 comma-separated fields, got 3"},
  };
  for (const Case& c : cases) {
    const std::string error = TraceErrorOf(WriteTrace(c.name, c.text));
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.name << ": " << error;
  }
}

}  // namespace
}  // namespace kvroute::models
