// Requests queued deep keep their segments, not their block hashes, until the
// hashes are read again (RequestHashes::Forget, PointSpec): nothing a point
// reports may depend on when that happens. Overloaded points, where queues
// run to hundreds, are run forgetting every queued request's hashes, those of
// requests behind the default depth, and none, and compared in full.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "analysis/json_writer.h"
#include "sim/runner/cluster_simulation.h"
#include "tests/runner/test_scenario.h"

namespace kvroute::sim {
namespace {

constexpr uint32_t kForgetAlways = 0, kForgetNever = UINT32_MAX;

void ExpectForgettingChangesNothing(const Scenario& s, double qps) {
  for (size_t p = 0; p < s.policies.size(); ++p) {
    PointSpec spec{p, qps, 7};
    spec.forget_hashes_behind = kForgetNever;
    const analysis::PointResult result = RunPoint(s, spec);
    // Overloaded (over a hundred requests still waited when the run ended), or the
    // comparison tells nothing.
    ASSERT_GT(result.unfinished, 100u) << s.policies[p].name;
    const std::string kept = analysis::PointToJson(result, s.slos);
    for (uint32_t behind : {kForgetAlways, PointSpec{}.forget_hashes_behind}) {
      spec.forget_hashes_behind = behind;
      EXPECT_EQ(analysis::PointToJson(RunPoint(s, spec), s.slos), kept)
          << s.policies[p].name << ", forgetting behind " << behind;
    }
  }
}

// Policies that read every prompt's blocks to route (so the hashes exist
// before the request queues) and ones that do not, two replicas far past
// their capacity.
TEST(ForgottenHashesTest, OverloadedPointsAreIdentical) {
  ExpectForgettingChangesNothing(
      SmallCluster({"cluster.deployments=[{name: main, replicas: 2}]", "duration_s=40", "drain_s=5",
                    "policies=[dualmap, preble, llmd, sglang_cache_aware, dynamo_kv, "
                    "{name: dualmap, label: dualmap_exact, cache_state: exact}, flat_lb]"}),
      400);
}

// Multi-turn chats: each round's prompt repeats the conversation, its
// generated tokens included, so forgotten output hashes are read again too.
TEST(ForgottenHashesTest, ChatRoundsAreIdentical) {
  ExpectForgettingChangesNothing(
      LoadTestScenario({.name = "chat",
                        .duration_s = 40,
                        .drain_s = 60,
                        .replicas = 2,
                        .workload = R"(  shared_prefix: {system_tokens: 400, question_tokens: 300,
                  output_tokens: 60, enable_multi_turn_chat: true,
                  groups: 8, prompts_per_group: 64}
)",
                        .policies = "[preble, llmd, round_robin]",
                        .qps = 150}),
      150);
}

}  // namespace
}  // namespace kvroute::sim
