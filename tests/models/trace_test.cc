#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <unordered_set>

#include "models/trace_reader.h"
#include "models/trace_reader_internal.h"
#include "models/trace_replay.h"
#include "models/workload.h"

namespace kvroute::models {
namespace {

const char kConversation[] = "../shared/traces/mooncake/conversation_trace.jsonl";
const char kSynthetic[] = "../shared/traces/mooncake/synthetic_trace.jsonl";
const char kAzureConv[] = "../shared/traces/azure2023/AzureLLMInferenceTrace_conv.csv";

// An independent count over the raw file: the share of hash ids that appeared
// in an earlier line, and the line count and input-token total.
struct RawCount {
  double block_hit_rate = 0;
  uint64_t lines = 0, input_tokens = 0;
};

RawCount CountMooncake(const std::string& path) {
  std::ifstream in(path);
  std::unordered_set<long> seen;
  std::vector<long> ids;
  RawCount c;
  long hits = 0, total = 0;
  for (std::string line; std::getline(in, line);) {
    ++c.lines;
    c.input_tokens += std::stoul(line.substr(line.find("\"input_length\":") + 15));
    std::istringstream list(line.substr(line.find('[', line.find("hash_ids")) + 1));
    ids.clear();
    for (long id; list >> id;) {
      ids.push_back(id);
      char comma;
      if (!(list >> comma) || comma != ',') break;
    }
    for (long id : ids) hits += seen.count(id), ++total;
    seen.insert(ids.begin(), ids.end());
  }
  c.block_hit_rate = static_cast<double>(hits) / total;
  return c;
}

std::shared_ptr<const Trace> Read(const char* path, TraceConfig::Format format) {
  return std::make_shared<const Trace>(ReadTrace({.format = format, .file = path}));
}

TEST(TraceTest, MooncakeIdealHitRateMatchesAnIndependentCount) {
  for (auto [path, expected] : {std::pair{kConversation, 0.366}, {kSynthetic, 0.640}}) {
    RawCount raw = CountMooncake(path);
    auto trace = Read(path, TraceConfig::Format::kMooncake);
    EXPECT_DOUBLE_EQ(NativeBlockHitRate(*trace), raw.block_hit_rate) << path;
    EXPECT_NEAR(raw.block_hit_rate, expected, 0.001) << path;
  }
}

TEST(TraceTest, ReplayYieldsTheTracesRequestsAndLengths) {
  RawCount raw = CountMooncake(kConversation);
  auto trace = Read(kConversation, TraceConfig::Format::kMooncake);
  TraceReplay replay(trace, false, 10, sim::kNever, 16);
  Request r;
  uint64_t n = 0, tokens = 0;
  while (replay.Next(&r)) {
    ++n;
    tokens += r.prompt_tokens;
    EXPECT_EQ(r.hashes.prompt().size(), r.prompt_tokens / 16);
  }
  EXPECT_EQ(n, raw.lines);
  EXPECT_EQ(tokens, raw.input_tokens);
}

TEST(TraceTest, ReplayScalesTimeToTheLoadAndLoops) {
  auto trace = Read(kSynthetic, TraceConfig::Format::kMooncake);
  TraceReplay slow(trace, true, 5, sim::FromSeconds(3000), 16);
  TraceReplay fast(trace, true, 10, sim::FromSeconds(1500), 16);
  Request a, b;
  uint64_t n = 0;
  while (slow.Next(&a)) {
    ASSERT_TRUE(fast.Next(&b));
    EXPECT_NEAR(static_cast<double>(b.arrival), a.arrival / 2.0, 1.0);
    EXPECT_EQ(a.hashes.prompt(), b.hashes.prompt());
    ++n;
  }
  // 5 QPS for 3000 s: 3.76 passes of 3,993 requests; the partial last pass
  // follows the trace's own arrival pattern, so the count is near, not at, 15000.
  EXPECT_GT(n, 3 * trace->records.size());
  EXPECT_NEAR(static_cast<double>(n), 15000, 300);
}

// Native timing: the trace's own timestamps (the conversation trace: 12,031
// requests over 3,537.0 s), its own rate the only load, any other refused.
TEST(TraceTest, NativeTimingKeepsTheTracesOwnTimestamps) {
  WorkloadConfig c;
  c.trace = {.format = TraceConfig::Format::kMooncake,
             .file = kConversation,
             .loop = true,
             .timing = TraceConfig::Timing::kNative};
  auto trace = Read(kConversation, TraceConfig::Format::kMooncake);
  double native = NativeQps(*trace);
  EXPECT_NEAR(native, 12030.0 / 3537.0, 1e-3);
  EXPECT_NEAR(TracePeriod(*trace), 3537.0 * 12031 / 12030, 0.1);
  auto source = MakeRequestSource(c, 1, native, sim::FromSeconds(4000));
  Request r;
  size_t n = 0;
  while (source->Next(&r)) {
    size_t i = n % trace->records.size();
    double pass_s = n < trace->records.size() ? 0 : TracePeriod(*trace);
    ASSERT_NEAR(sim::ToSeconds(r.arrival), pass_s + sim::ToSeconds(trace->records[i].time_ns), 1e-6)
        << n;
    ++n;
  }
  EXPECT_GT(n, trace->records.size());  // into the second pass
  try {
    MakeRequestSource(c, 1, 80, sim::FromSeconds(4000));
    ADD_FAILURE() << "a load other than the trace's own was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("its own rate, 3.4011884"), std::string::npos) << e.what();
  }
}

TEST(TraceTest, MooncakeBlocksMapOntoSmallerBlocks) {
  // Two requests sharing their first 512-token block id share exactly the
  // first 32 blocks of 16 tokens.
  std::string path = ::testing::TempDir() + "/two.jsonl";
  std::ofstream(path) << "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 5, "
                         "\"hash_ids\": [7, 8]}\n"
                      << "{\"timestamp\": 1000, \"input_length\": 1024, \"output_length\": 5, "
                         "\"hash_ids\": [7, 9]}\n";
  auto trace = Read(path.c_str(), TraceConfig::Format::kMooncake);
  TraceReplay replay(trace, false, 1, sim::kNever, 16);
  Request a, b;
  ASSERT_TRUE(replay.Next(&a));
  ASSERT_TRUE(replay.Next(&b));
  ASSERT_EQ(a.hashes.prompt().size(), 62u);
  ASSERT_EQ(b.hashes.prompt().size(), 64u);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(a.hashes.prompt()[j], b.hashes.prompt()[j]);
  EXPECT_NE(a.hashes.prompt()[32], b.hashes.prompt()[32]);
}

TEST(TraceTest, AzureReplayHasTheTracesRequestsAndNoSharing) {
  std::ifstream in(kAzureConv);
  std::string line;
  std::getline(in, line);
  uint64_t lines = 0, tokens = 0;
  while (std::getline(in, line)) {
    ++lines;
    tokens += std::stoul(line.substr(line.find(',') + 1));
  }
  auto trace = Read(kAzureConv, TraceConfig::Format::kAzure);
  TraceReplay replay(trace, false, 3, sim::kNever, 16);
  std::unordered_set<uint64_t> blocks;
  Request r;
  uint64_t n = 0, sum = 0, all_blocks = 0;
  while (replay.Next(&r)) {
    ++n;
    sum += r.prompt_tokens;
    all_blocks += r.hashes.prompt().size();
    blocks.insert(r.hashes.prompt().begin(), r.hashes.prompt().end());
  }
  EXPECT_EQ(n, lines);
  EXPECT_EQ(sum, tokens);
  EXPECT_EQ(blocks.size(), all_blocks);
}

TEST(TraceTest, SubsetKeepsTheRequestedRange) {
  Trace t = ReadTrace(
      {.format = TraceConfig::Format::kAzure, .file = kAzureConv, .skip = 100, .limit = 50});
  EXPECT_EQ(t.records.size(), 50u);
  EXPECT_EQ(t.records[0].time_ns, 0);
}

void ExpectError(const std::string& text, const std::string& suffix, TraceConfig::Format format,
                 const std::string& expected) {
  std::string path = ::testing::TempDir() + "/bad" + suffix;
  std::ofstream(path) << text;
  try {
    ReadTrace({.format = format, .file = path});
    FAIL() << "no error for " << text;
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(TraceTest, BadLinesNameFileLineAndField) {
  using F = TraceConfig::Format;
  std::string good =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n";
  ExpectError(
      good +
          "{\"timestamp\": 5, \"input_length\": \"x\", \"output_length\": 1, \"hash_ids\": []}\n",
      ".jsonl", F::kMooncake, "bad.jsonl:2: field 'input_length'");
  ExpectError(good + "{\"timestamp\": 5, \"input_lenght\": 1}\n", ".jsonl", F::kMooncake,
              "bad.jsonl:2: field 'input_lenght': unknown field");
  ExpectError(good + "{\"timestamp\": 5, \"output_length\": 1, \"hash_ids\": []}\n", ".jsonl",
              F::kMooncake, ":2: field 'input_length': required field is missing");
  ExpectError(good + "not json\n", ".jsonl", F::kMooncake, "bad.jsonl:2:");
  ExpectError(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,374,44\n"
      "2023-11-16 18:15:47.00,37x,44\n",
      ".csv", F::kAzure, "bad.csv:3: field 'ContextTokens'");
  ExpectError("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-16 18:15:46.68,374,44\n", ".csv",
              F::kAzure, "bad.csv:2: field 'TIMESTAMP'");
}

// Civil dates: leap years by the Gregorian rule, nothing rolled over into
// the next month, the int64-nanosecond clock's years only.
TEST(TraceTest, TimestampsAreRealDates) {
  int64_t ns = 0;
  EXPECT_EQ(trace_internal::ParseTimestamp("1970-01-01 00:00:01.5", &ns), "");
  EXPECT_EQ(ns, 1'500'000'000);
  EXPECT_EQ(trace_internal::ParseTimestamp("2024-02-29 00:00:00", &ns), "");
  EXPECT_EQ(trace_internal::ParseTimestamp("2000-02-29 00:00:00", &ns), "");
  EXPECT_EQ(trace_internal::ParseTimestamp("2023-02-29 00:00:00", &ns),
            "day 29 does not exist in month 2 of 2023");
  EXPECT_EQ(trace_internal::ParseTimestamp("1900-02-29 00:00:00", &ns),
            "day 29 does not exist in month 2 of 1900");
  EXPECT_EQ(trace_internal::ParseTimestamp("2023-04-31 00:00:00", &ns),
            "day 31 does not exist in month 4 of 2023");
  EXPECT_NE(trace_internal::ParseTimestamp("2262-06-01 00:00:00", &ns), "");
  EXPECT_EQ(trace_internal::ParseTimestamp("2261-12-31 23:59:59.999999999", &ns), "");
  EXPECT_GT(ns, 0);
  EXPECT_NE(trace_internal::ParseTimestamp("2023-06-30 23:59:60", &ns), "");
}

}  // namespace
}  // namespace kvroute::models
