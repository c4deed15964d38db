#include "sim/runner/plan_command.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kvroute::sim {
namespace {

std::string ErrorOf(const std::string& text) {
  std::istringstream in(text);
  try {
    ReadKeyRates(in, "rates.csv");
  } catch (const RatesFileError& e) {
    return e.what();
  }
  return "";
}

TEST(PlanCommandTest, ReadsKeysAndRates) {
  std::istringstream in("key,rate\nshop-a,12.5\n\nshop-b, 3\n");
  KeyRates rates = ReadKeyRates(in, "rates.csv");
  EXPECT_EQ(rates.keys, (std::vector<std::string>{"shop-a", "shop-b"}));
  EXPECT_EQ(rates.rates, (std::vector<double>{12.5, 3}));
}

TEST(PlanCommandTest, BadLinesNameFileLineAndKey) {
  EXPECT_EQ(ErrorOf("k,r\n"), "rates.csv:1: expected the header 'key,rate'");
  EXPECT_EQ(ErrorOf("key,rate\na,1\nb,fast\n"),
            "rates.csv:3: key 'b': rate must be a non-negative number, got 'fast'");
  EXPECT_EQ(ErrorOf("key,rate\na,-1\n"),
            "rates.csv:2: key 'a': rate must be a non-negative number, got '-1'");
  EXPECT_EQ(ErrorOf("key,rate\na,1\na,2\n"), "rates.csv:3: key 'a' repeated");
  EXPECT_EQ(ErrorOf("key,rate\na,1,2\n"), "rates.csv:2: expected 'key,rate'");
  EXPECT_EQ(ErrorOf(""), "rates.csv:1: expected the header 'key,rate'");
}

TEST(PlanCommandTest, WritesTheTableAndStatistics) {
  std::istringstream in("key,rate\nhot,25\nwarm,8\ncold,0\n");
  KeyRates rates = ReadKeyRates(in, "r");
  policies::RoutingPlan plan = policies::BuildPlan(
      rates.rates, {.destinations = 3, .q_cap = 10, .slots_per_destination = 2});
  std::ostringstream csv, json;
  WritePlanCsv(csv, rates, plan, 0.5);
  WritePlanJson(json, rates, plan, 0.5);
  EXPECT_NE(csv.str().find("admitted_keys=2 slots_used=4"), std::string::npos);
  EXPECT_NE(csv.str().find("key,rate,destinations\nhot,25,0 1 2\nwarm,8,"), std::string::npos);
  EXPECT_EQ(csv.str().find("\ncold,"), std::string::npos);  // rate 0: not admitted
  EXPECT_NE(json.str().find("\"table\": {\"hot\": [0, 1, 2], \"warm\": ["), std::string::npos);
}

}  // namespace
}  // namespace kvroute::sim
