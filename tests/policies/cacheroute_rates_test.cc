// What a CacheRoute control tick plans from when the key rates move (seed 003
// §3.2, §5.6): the rates measured over the interval just ended (the deployed
// planner), or the workload's true rates at the tick (rates: workload).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "policies/registry.h"

namespace kvroute::policies {
namespace {

constexpr uint32_t kReplicas = 3, kKeys = 20;

// One hot key at 30 req/s (k_b = 3 at q_cap 10, all C = 3 x 1 slots), the
// rest at 0.5 req/s (never admitted: no slot left).
std::vector<double> HotKey(uint32_t hot) {
  std::vector<double> rates(kKeys, 0.5);
  rates[hot] = 30;
  return rates;
}

std::unique_ptr<Policy> MakeWithRates(const char* rates, bool offer_true_rates) {
  const PolicyInfo& info = FindPolicy("cacheroute");
  PolicyContext ctx;
  ctx.num_replicas = kReplicas;
  ctx.seed = 3;
  ctx.key_rates = HotKey(0);
  if (offer_true_rates) {
    // Key 0 is hot until 60 s, key 7 after.
    ctx.true_key_rates = [](sim::Time t, std::vector<double>* out) {
      *out = HotKey(t < sim::FromSeconds(60) ? 0 : 7);
    };
  }
  return info.factory(ResolveParams(info, {{"q_cap", 10, ""},
                                           {"slots_per_replica", 1, ""},
                                           {"interval_s", 60, ""},
                                           {"rates", 0, "", rates}}),
                      ctx);
}

// The replicas the plan gives `key`, or none when it is not admitted. An
// admitted key goes to its lightest member, the same one every time; with the
// loads rotated, each member is the lightest once. A key outside the plan
// goes to a power of two choices, which varies.
std::set<uint32_t> Members(Policy& policy, uint32_t key) {
  models::Request request;
  request.key = key;
  std::vector<models::ReplicaLoad> loads(kReplicas);
  std::set<uint32_t> members;
  for (uint32_t j = 0; j < kReplicas; ++j) {
    for (uint32_t r = 0; r < kReplicas; ++r) loads[r].prefill_tokens = (r + j) % kReplicas * 1000;
    ClusterView view{loads, 0};
    uint32_t first = policy.Route(request, view);
    for (int i = 0; i < 20; ++i) {
      if (policy.Route(request, view) != first) return {};
    }
    members.insert(first);
  }
  return members;
}

// Dispatches one interval's requests at `rates` (req/s over 60 s), then ticks.
void Interval(Policy& policy, const std::vector<double>& rates, double end_s) {
  std::vector<models::ReplicaLoad> loads(kReplicas);
  models::Request request;
  for (uint32_t key = 0; key < kKeys; ++key) {
    request.key = key;
    for (int i = 0; i < static_cast<int>(rates[key] * 60); ++i) {
      policy.OnDispatch(request, 0, sim::FromSeconds(end_s - 60));
    }
  }
  policy.OnControlTick(ClusterView{loads, sim::FromSeconds(end_s)});
}

const std::set<uint32_t> kAll = {0, 1, 2};

TEST(CacheRouteRatesTest, MeasuredRatesFollowTheHotKeyOneIntervalLate) {
  auto policy = MakeWithRates("measured", false);
  EXPECT_EQ(Members(*policy, 0), kAll);  // the configured rates
  EXPECT_TRUE(Members(*policy, 7).empty());
  Interval(*policy, HotKey(0), 60);
  EXPECT_EQ(Members(*policy, 0), kAll);
  EXPECT_TRUE(Members(*policy, 7).empty());
  Interval(*policy, HotKey(7), 120);  // measured: key 7 was hot in [60, 120)
  EXPECT_EQ(Members(*policy, 7), kAll);
  EXPECT_TRUE(Members(*policy, 0).empty());
}

TEST(CacheRouteRatesTest, WorkloadRatesFollowTheHotKeyAtTheTick) {
  auto policy = MakeWithRates("workload", true);
  EXPECT_EQ(Members(*policy, 0), kAll);
  Interval(*policy, HotKey(0), 60);  // the true rates from 60 s on: key 7 hot
  EXPECT_EQ(Members(*policy, 7), kAll);
  EXPECT_TRUE(Members(*policy, 0).empty());
}

TEST(CacheRouteRatesTest, WorkloadRatesNeedTheWorkloadsRates) {
  EXPECT_THROW(MakeWithRates("workload", false), PolicyConfigError);
  EXPECT_NO_THROW(MakeWithRates("measured", false));
}

}  // namespace
}  // namespace kvroute::policies
