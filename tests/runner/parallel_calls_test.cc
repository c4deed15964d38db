// workload.sessions.agent.parallel_calls end to end (models/session_plan.h,
// sim/runner/arrival_driver.h): without the key a point is what it was before
// the key existed (goldens recorded then); with it a tool step waits for its
// slowest call and appends every call's output; bad values are rejected
// naming the file, line and key.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/json_writer.h"
#include "analysis/request_record.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/scenario_loader.h"
#include "tests/runner/request_log.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

using Record = analysis::RequestRecord;

constexpr char kAgentGoldenDir[] = "tests/runner/parallel_calls_absent_golden/";

std::string ReadAgentFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string AgentJson(const Scenario& s, size_t policy) {
  return analysis::PointToJson(RunPoint(s, PointSpec{policy, 20, 1}), s.slos);
}

// The goldens are `kvroute point small.yaml --policy P --qps 20 --seed 1
// --json` from the version before parallel_calls existed.
TEST(ParallelCallsTest, WithoutTheKeyAPointIsWhatItWasBefore) {
  const Scenario s = LoadScenarioFile(std::string(kAgentGoldenDir) + "small.yaml", {});
  ASSERT_EQ(s.policies.size(), 2u);
  for (size_t p = 0; p < 2; ++p) {
    const std::string golden =
        ReadAgentFile(std::string(kAgentGoldenDir) + s.policies[p].name + ".json");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(AgentJson(s, p) + "\n", golden) << s.policies[p].name;
  }
}

TEST(ParallelCallsTest, OneCallPerStepIsTheDefault) {
  const Scenario absent = LoadScenarioFile(std::string(kAgentGoldenDir) + "small.yaml", {});
  const Scenario one = LoadScenarioFile(std::string(kAgentGoldenDir) + "small.yaml",
                                        {"workload.sessions.agent.parallel_calls=1"});
  EXPECT_EQ(AgentJson(one, 1), AgentJson(absent, 1));
  const Scenario three = LoadScenarioFile(std::string(kAgentGoldenDir) + "small.yaml",
                                          {"workload.sessions.agent.parallel_calls=3"});
  EXPECT_NE(AgentJson(three, 1), AgentJson(absent, 1));
}

Scenario LoadAgent(const std::string& agent) {
  return LoadTestScenario({.name = "parallel",
                           .duration_s = 120,
                           .workload = R"(  keys: 8
  prompt: {system_tokens: 256, new_tokens: {kind: uniform, min: 16, max: 200}}
  output_tokens: {kind: uniform, min: 20, max: 120}
  sessions:
    turns: 1
    pacing: closed_loop
    agent: )" + agent,
                           .qps = 1});
}

// Three calls of 400 tokens each, every call 0.75 s: the next request goes
// out 0.75 s after the response (the slowest call, not the sum of 2.25 s),
// re-sends the previous prompt and output and adds the three outputs, and
// hits the cached blocks of the previous prompt and output.
TEST(ParallelCallsTest, AStepWaitsForItsSlowestCallAndAppendsEveryOutput) {
  const Scenario s = LoadAgent(
      "{tool_calls: 2, parallel_calls: 3, tool_output_tokens: 400, "
      "tool_latency_s: 0.75}");
  Records r;
  RunPoint(s, PointSpec{0, 1, 1}, &r);
  std::map<uint64_t, std::vector<Record>> sessions;
  for (const Record& rec : r.all) sessions[rec.session].push_back(rec);
  ASSERT_GT(sessions.size(), 10u);
  int tool_steps = 0;
  for (auto& [id, steps] : sessions) {
    std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; });
    EXPECT_LE(steps.size(), 3u);  // a user turn and two tool steps
    for (size_t i = 1; i < steps.size(); ++i) {
      const Record &a = steps[i - 1], &b = steps[i];
      ASSERT_EQ(a.outcome, Record::Outcome::kCompleted);
      EXPECT_EQ(b.arrival - a.completed, FromSeconds(0.75)) << id;
      EXPECT_EQ(b.prompt_tokens, a.prompt_tokens + a.output_tokens + 3 * 400) << id;
      // The last output token's KV is never computed, so the cached blocks
      // end one token short.
      EXPECT_GE(b.hit_tokens, (a.prompt_tokens + a.output_tokens - 1) / 16 * 16) << id;
      ++tool_steps;
    }
  }
  EXPECT_GT(tool_steps, 20);
}

void ExpectAgentRejected(const std::string& agent, const std::string& message) {
  try {
    LoadAgent(agent);
    FAIL() << "accepted " << agent;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parallel.yaml:"), std::string::npos) << what;
    EXPECT_NE(what.find(message), std::string::npos) << what;
  }
}

TEST(ParallelCallsTest, BadValuesAreRejected) {
  const std::string key = "workload.sessions.agent.parallel_calls";
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: 0}", key);
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: 0}", "at least one call");
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: {kind: uniform, min: 0, max: 3}}",
                      "at least one call");
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: 1000}", "at most 256");
  ExpectAgentRejected(
      "{tool_calls: 2, parallel_calls: {kind: lognormal, median: 2, sigma: 1, min: 1}}",
      "at most 256");
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: -2}", key);
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: many}", key);
  ExpectAgentRejected("{tool_calls: 2, parallel_call: 2}", "did you mean 'parallel_calls'?");
  ExpectAgentRejected("{tool_calls: 2, parallel_calls: 2, parallel_calls: 3}", "duplicate key");
}

}  // namespace
}  // namespace kvroute::sim
