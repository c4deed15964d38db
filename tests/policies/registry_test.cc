#include "policies/registry.h"

#include <gtest/gtest.h>

namespace kvroute::policies {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const PolicyConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RegistryTest, HasTheWalkingSkeletonPolicies) {
  for (const char* name : {"round_robin", "random", "flat_lb", "sticky", "cacheroute"}) {
    EXPECT_EQ(FindPolicy(name).name, name);
  }
}

TEST(RegistryTest, UnknownPolicyListsTheValidNames) {
  std::string error = ErrorOf([] { FindPolicy("cache_route"); });
  EXPECT_NE(error.find("unknown policy 'cache_route'"), std::string::npos);
  EXPECT_NE(error.find("cacheroute"), std::string::npos);
  EXPECT_NE(error.find("flat_lb"), std::string::npos);
}

TEST(RegistryTest, UnknownParameterListsTheValidOnes) {
  std::string error = ErrorOf([] {
    ResolveParams(FindPolicy("cacheroute"), {{"qcap", 5, "s.yaml:12: key 'policies[2].qcap'"}});
  });
  EXPECT_NE(error.find("s.yaml:12"), std::string::npos);
  EXPECT_NE(error.find("unknown parameter 'qcap'"), std::string::npos);
  EXPECT_NE(error.find("q_cap, slots_per_replica, interval_s"), std::string::npos);
}

TEST(RegistryTest, DefaultsFillMissingParameters) {
  Params p = ResolveParams(FindPolicy("cacheroute"), {{"q_cap", 5, ""}});
  EXPECT_EQ(p.Get("q_cap"), 5);
  EXPECT_EQ(p.Get("slots_per_replica"), 16);
  EXPECT_EQ(p.Get("interval_s"), 60);
}

TEST(RegistryTest, OutOfRangeAndFractionalValuesAreRejected) {
  EXPECT_NE(ErrorOf([] { ResolveParams(FindPolicy("cacheroute"), {{"q_cap", -1, ""}}); }), "");
  EXPECT_NE(ErrorOf([] { ResolveParams(FindPolicy("sticky"), {{"virtual_nodes", 2.5, ""}}); }), "");
}

TEST(RegistryTest, ParameterlessPolicySaysSo) {
  std::string error = ErrorOf([] { ResolveParams(FindPolicy("flat_lb"), {{"d", 3, ""}}); });
  EXPECT_NE(error.find("it takes none"), std::string::npos);
}

TEST(RegistryTest, ChoiceParametersTakeANameAndGiveItsIndex) {
  const PolicyInfo& info = FindPolicy("least_loaded");
  EXPECT_EQ(ResolveParams(info, {}).Get("measure"), 0);  // requests
  EXPECT_EQ(ResolveParams(info, {{"measure", 0, "", "work"}}).Get("measure"), 2);
  std::string error = ErrorOf([&] { ResolveParams(info, {{"measure", 0, "s.yaml:3", "queue"}}); });
  EXPECT_NE(error.find("s.yaml:3"), std::string::npos);
  EXPECT_NE(error.find("must be one of requests, tokens, work, got 'queue'"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ResolveParams(info, {{"measure", 1, ""}}); }), "");
}

TEST(RegistryTest, NumericParametersRejectNames) {
  std::string error = ErrorOf([] {
    ResolveParams(FindPolicy("chwbl"), {{"epsilon", 0, "", "quarter"}});
  });
  EXPECT_NE(error.find("must be a number, got 'quarter'"), std::string::npos);
}

}  // namespace
}  // namespace kvroute::policies
