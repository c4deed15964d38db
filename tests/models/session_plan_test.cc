// Closed-loop sessions and agent loops drawn from their own streams
// (models/session_plan.h).
#include "models/session_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace kvroute::models {
namespace {

WorkloadConfig ChatConfig() {
  WorkloadConfig c;
  c.keys = 20;
  c.system_tokens = 100;
  c.new_tokens = LengthDistribution::Uniform(5, 60);
  c.output_tokens = LengthDistribution::Uniform(1, 80);
  c.sessions.turns = LengthDistribution::Fixed(3);
  c.sessions.think_time_s = LengthDistribution::Fixed(4);
  c.sessions.closed_loop = true;
  return c;
}

std::vector<Request> AllSteps(const SessionPlanner& planner, uint64_t id) {
  Session s;
  planner.Draw(id, &s);
  std::vector<Request> out;
  while (!s.done()) {
    out.emplace_back();
    planner.Emit(&s, out.size(), 0, &out.back());
  }
  return out;
}

// Turn t+1's prompt is turn t's prompt, its output and new user tokens: its
// blocks start with every full block of turn t's prompt and of its output.
TEST(SessionPlanTest, ThreeTurnsResendPromptAndOutput) {
  SessionPlanner planner(ChatConfig(), 7);
  for (uint64_t id = 0; id < 50; ++id) {
    std::vector<Request> turns = AllSteps(planner, id);
    ASSERT_EQ(turns.size(), 3u);
    EXPECT_GE(turns[0].prompt_tokens, 105u);
    for (size_t t = 1; t < turns.size(); ++t) {
      const Request &a = turns[t - 1], &b = turns[t];
      EXPECT_EQ(b.key, a.key);
      EXPECT_EQ(b.session, id);
      const uint32_t user = b.prompt_tokens - a.prompt_tokens - a.output_tokens;
      EXPECT_GE(user, 5u);
      EXPECT_LE(user, 60u);
      std::vector<uint64_t> earlier = a.hashes.prompt();
      earlier.insert(earlier.end(), a.hashes.output().begin(), a.hashes.output().end());
      EXPECT_EQ(earlier.size(), (a.prompt_tokens + a.output_tokens) / 16);
      ASSERT_GE(b.hashes.prompt().size(), earlier.size());
      EXPECT_TRUE(std::equal(earlier.begin(), earlier.end(), b.hashes.prompt().begin()));
    }
  }
}

// An agent's user turn is followed by K tool calls, each appending the
// tool's output after the model's, each after the tool's latency.
TEST(SessionPlanTest, AgentLoopGrowsByEachToolOutput) {
  WorkloadConfig c = ChatConfig();
  c.sessions.turns = LengthDistribution::Fixed(2);
  c.sessions.agent.tool_calls = LengthDistribution::Fixed(3);
  c.sessions.agent.tool_output_tokens = LengthDistribution::Fixed(300);
  c.sessions.agent.tool_latency_s = LengthDistribution::Fixed(1.5);
  SessionPlanner planner(c, 3);
  EXPECT_DOUBLE_EQ(planner.MeanSteps(), 8);
  Session s;
  planner.Draw(11, &s);
  ASSERT_EQ(s.steps.size(), 8u);
  std::vector<Request> steps = AllSteps(planner, 11);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const bool tool = i % 4 != 0;
    EXPECT_EQ(s.steps[i].tool, tool) << i;
    EXPECT_DOUBLE_EQ(s.steps[i].gap_s, tool ? 1.5 : (i == 0 ? 0 : 4)) << i;
    if (tool) {
      EXPECT_EQ(steps[i].prompt_tokens,
                steps[i - 1].prompt_tokens + steps[i - 1].output_tokens + 300);
    }
  }
}

// Parallel calls: a tool step appends each call's output as its own
// segment, in call order, after the previous prompt and output, and waits
// for the slowest call. Latencies uniform on 1..9 s: the step's gap is the
// maximum of three (mean 9 - sum_{k<9} (k/9)^3 = 7.22 s), not one call's
// (5 s) nor their sum (15 s).
TEST(SessionPlanTest, ParallelCallsAppendEveryOutputAndWaitForTheSlowest) {
  WorkloadConfig c = ChatConfig();
  c.sessions.turns = LengthDistribution::Fixed(1);
  c.sessions.agent.tool_calls = LengthDistribution::Fixed(2);
  c.sessions.agent.parallel_calls = LengthDistribution::Fixed(3);
  c.sessions.agent.tool_output_tokens = LengthDistribution::Uniform(20, 300);
  c.sessions.agent.tool_latency_s = LengthDistribution::Uniform(1, 9);
  SessionPlanner planner(c, 3);
  EXPECT_DOUBLE_EQ(planner.MeanSteps(), 3);  // a request per step, whatever the calls
  double gap_sum = 0;
  int gaps = 0, nines = 0;
  for (uint64_t id = 0; id < 1500; ++id) {
    Session s;
    planner.Draw(id, &s);
    ASSERT_EQ(s.steps.size(), 3u);
    ASSERT_EQ(s.call_tokens.size(), 6u);
    Request previous;
    for (uint32_t i = 0; i < s.steps.size(); ++i) {
      const SessionStep step = s.steps[i];
      Request r;
      planner.Emit(&s, i, 0, &r);
      if (i == 0) {
        previous = r;
        continue;
      }
      ASSERT_EQ(step.calls, 3u);
      // The history ends with the previous output and the three outputs.
      ASSERT_GE(s.history.size(), 4u);
      const auto tail = s.history.end() - 3;
      uint32_t appended = 0;
      for (uint32_t k = 0; k < 3; ++k) {
        EXPECT_EQ(tail[k].tokens, s.call_tokens[step.first_call + k]);
        appended += tail[k].tokens;
      }
      EXPECT_NE(tail[0].salt, tail[1].salt);
      EXPECT_NE(tail[1].salt, tail[2].salt);
      EXPECT_EQ((tail - 1)->tokens, previous.output_tokens);
      EXPECT_EQ(step.new_tokens, appended);
      EXPECT_EQ(r.prompt_tokens, previous.prompt_tokens + previous.output_tokens + appended);
      std::vector<uint64_t> earlier = previous.hashes.prompt();
      earlier.insert(earlier.end(), previous.hashes.output().begin(),
                     previous.hashes.output().end());
      ASSERT_GE(r.hashes.prompt().size(), earlier.size());
      EXPECT_TRUE(std::equal(earlier.begin(), earlier.end(), r.hashes.prompt().begin()));
      EXPECT_EQ(step.gap_s, std::round(step.gap_s));
      EXPECT_GE(step.gap_s, 1);
      EXPECT_LE(step.gap_s, 9);
      gap_sum += step.gap_s;
      nines += step.gap_s == 9;
      ++gaps;
      previous = r;
    }
  }
  ASSERT_EQ(gaps, 3000);
  // Standard error of the mean about 0.03 s; P(max = 9) = 1 - (8/9)^3 = 0.298.
  EXPECT_NEAR(gap_sum / gaps, 9 - 1296.0 / 729, 0.15);
  EXPECT_NEAR(static_cast<double>(nines) / gaps, 1 - 512.0 / 729, 0.03);
}

// A drawn number of calls per step: between the bounds, and varying.
TEST(SessionPlanTest, ParallelCallsCanBeDrawn) {
  WorkloadConfig c = ChatConfig();
  c.sessions.agent.tool_calls = LengthDistribution::Fixed(2);
  c.sessions.agent.parallel_calls = LengthDistribution::Uniform(1, 4);
  SessionPlanner planner(c, 8);
  std::map<uint32_t, int> counts;
  for (uint64_t id = 0; id < 200; ++id) {
    Session s;
    planner.Draw(id, &s);
    uint32_t calls = 0;
    for (const SessionStep& step : s.steps) {
      if (step.tool) {
        EXPECT_EQ(step.first_call, calls);
        calls += step.calls;
        ++counts[step.calls];
      }
    }
    EXPECT_EQ(calls, s.call_tokens.size());
  }
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts.begin()->first, 1u);
  EXPECT_EQ(counts.rbegin()->first, 4u);
}

// Session n is a function of (seed, n) alone: drawn in any order, by any
// planner, it is the same; other sessions and seeds differ.
TEST(SessionPlanTest, EachSessionHasItsOwnStream) {
  WorkloadConfig c = ChatConfig();
  c.sessions.turns = LengthDistribution::Uniform(1, 6);
  c.sessions.think_time_s =
      LengthDistribution{.kind = LengthDistribution::Kind::kLognormal, .median = 3, .sigma = 1};
  SessionPlanner forward(c, 5), backward(c, 5), other_seed(c, 6);
  std::vector<Session> a(30), b(30);
  for (uint64_t id = 0; id < 30; ++id) forward.Draw(id, &a[id]);
  for (uint64_t id = 30; id-- > 0;) backward.Draw(id, &b[id]);
  int differs = 0, differs_by_seed = 0;
  for (uint64_t id = 0; id < 30; ++id) {
    ASSERT_EQ(a[id].steps.size(), b[id].steps.size());
    EXPECT_EQ(a[id].key, b[id].key);
    for (size_t i = 0; i < a[id].steps.size(); ++i) {
      EXPECT_EQ(a[id].steps[i].new_tokens, b[id].steps[i].new_tokens);
      EXPECT_EQ(a[id].steps[i].output_tokens, b[id].steps[i].output_tokens);
      EXPECT_EQ(a[id].steps[i].gap_s, b[id].steps[i].gap_s);
    }
    if (id > 0) differs += a[id].steps[0].new_tokens != a[id - 1].steps[0].new_tokens;
    Session o;
    other_seed.Draw(id, &o);
    differs_by_seed += o.steps[0].new_tokens != a[id].steps[0].new_tokens;
  }
  EXPECT_GT(differs, 20);
  EXPECT_GT(differs_by_seed, 20);
}

// The instant-cluster view: sessions start at qps / MeanSteps, and a session's
// steps arrive their gaps apart.
TEST(SessionPlanTest, SourceSpacesStepsByTheirGaps) {
  WorkloadConfig c = ChatConfig();
  c.sessions.agent.tool_calls = LengthDistribution::Fixed(1);
  c.sessions.agent.tool_latency_s = LengthDistribution::Fixed(0.5);
  SessionSource source(c, 9, 12, sim::FromSeconds(2000));
  Request r;
  std::map<uint64_t, std::vector<sim::Time>> arrivals;
  sim::Time last = 0;
  uint64_t n = 0;
  while (source.Next(&r)) {
    EXPECT_GE(r.arrival, last);
    last = r.arrival;
    EXPECT_EQ(TotalTokens(source.segments()), r.prompt_tokens);
    arrivals[r.session].push_back(r.arrival);
    ++n;
  }
  // 6 steps per session at 12 QPS: 2 sessions a second, Poisson.
  EXPECT_NEAR(static_cast<double>(arrivals.size()), 4000, 4 * std::sqrt(4000.0));
  for (const auto& [id, times] : arrivals) {
    for (size_t i = 1; i < times.size(); ++i) {
      EXPECT_EQ(times[i] - times[i - 1], sim::FromSeconds(i % 2 == 1 ? 0.5 : 4)) << id;
    }
  }
  EXPECT_GT(n, 20000u);
}

}  // namespace
}  // namespace kvroute::models
