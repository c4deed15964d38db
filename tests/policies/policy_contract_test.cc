// One contract suite over every registered policy (STYLE.md): each routes only
// to healthy replicas, and makes the same choices for the same seed.
#include <gtest/gtest.h>

#include <vector>

#include "models/workload.h"
#include "policies/registry.h"

namespace kvroute::policies {
namespace {

class PolicyContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Policy> Make(uint64_t seed, uint32_t replicas = 6) {
    const PolicyInfo& info = FindPolicy(GetParam());
    PolicyContext ctx;
    ctx.num_replicas = replicas;
    ctx.seed = seed;
    for (double share : models::ZipfShares(keys_, 1.0)) ctx.key_rates.push_back(share * 50);
    return info.factory(ResolveParams(info, {}), ctx);
  }

  // Routes a fixed request sequence; loads move as if each request stayed.
  std::vector<uint32_t> RouteSequence(Policy& policy, std::vector<models::ReplicaLoad>& loads,
                                      int n) {
    models::WorkloadConfig config;
    config.keys = keys_;
    models::WorkloadGenerator workload(config, 1, 50, sim::FromSeconds(1e6));
    std::vector<uint32_t> choices;
    models::Request request;
    for (int i = 0; i < n && workload.Next(&request); ++i) {
      ClusterView view{loads, request.arrival};
      uint32_t r = policy.Route(request, view);
      choices.push_back(r);
      policy.OnDispatch(request, r, request.arrival);
      loads[r].prefill_tokens += request.prompt_tokens;
      if (i % 200 == 199 && policy.ControlInterval() > 0) policy.OnControlTick(view);
    }
    return choices;
  }

  uint32_t keys_ = 200;
};

TEST_P(PolicyContractTest, RoutesOnlyToHealthyReplicas) {
  auto policy = Make(1);
  std::vector<models::ReplicaLoad> loads(6);
  loads[0].healthy = loads[3].healthy = loads[5].healthy = false;
  for (uint32_t r : RouteSequence(*policy, loads, 3000)) {
    ASSERT_TRUE(loads[r].healthy) << "routed to unhealthy replica " << r;
  }
}

TEST_P(PolicyContractTest, WorksWithASingleHealthyReplica) {
  auto policy = Make(1);
  std::vector<models::ReplicaLoad> loads(6);
  for (auto& l : loads) l.healthy = false;
  loads[4].healthy = true;
  for (uint32_t r : RouteSequence(*policy, loads, 500)) ASSERT_EQ(r, 4u);
}

TEST_P(PolicyContractTest, SameSeedSameChoices) {
  auto a = Make(7), b = Make(7);
  std::vector<models::ReplicaLoad> la(6), lb(6);
  EXPECT_EQ(RouteSequence(*a, la, 3000), RouteSequence(*b, lb, 3000));
}

TEST_P(PolicyContractTest, UsesEveryReplicaUnderSpreadTraffic) {
  auto policy = Make(3);
  std::vector<models::ReplicaLoad> loads(6);
  std::vector<int> used(6, 0);
  for (uint32_t r : RouteSequence(*policy, loads, 3000)) ++used[r];
  for (int r = 0; r < 6; ++r) EXPECT_GT(used[r], 0) << "replica " << r << " never chosen";
}

std::vector<std::string> AllPolicyNames() {
  std::vector<std::string> names;
  for (const PolicyInfo& info : PolicyTable()) names.push_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, PolicyContractTest, ::testing::ValuesIn(AllPolicyNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kvroute::policies
