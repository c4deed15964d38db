#include "sim/runner/plan_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace kvroute::sim {
namespace {

std::string PlanErrorOf(const std::string& text) {
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
  EXPECT_EQ(PlanErrorOf("k,r\n"), "rates.csv:1: expected the header 'key,rate'");
  EXPECT_EQ(PlanErrorOf("key,rate\na,1\nb,fast\n"),
            "rates.csv:3: key 'b': rate must be a non-negative number, got 'fast'");
  EXPECT_EQ(PlanErrorOf("key,rate\na,-1\n"),
            "rates.csv:2: key 'a': rate must be a non-negative number, got '-1'");
  EXPECT_EQ(PlanErrorOf("key,rate\na,1\na,2\n"), "rates.csv:3: key 'a' repeated");
  EXPECT_EQ(PlanErrorOf("key,rate\na,1,2\n"), "rates.csv:2: expected 'key,rate'");
  EXPECT_EQ(PlanErrorOf(""), "rates.csv:1: expected the header 'key,rate'");
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

std::string PreviousErrorOf(const std::string& text, bool json = false) {
  std::istringstream in(text);
  try {
    if (json) {
      ReadPreviousPlanJson(in, "old.json", 4);
    } else {
      ReadPreviousPlanCsv(in, "old.csv", 4);
    }
  } catch (const PlanFileError& e) {
    return e.what();
  }
  return "";
}

// A previous table: the statistics line, the header, then `rows`.
std::string Rows(std::string_view rows) {
  std::string text = "# keys=2\nkey,rate,destinations\n";
  text.append(rows);
  return text;
}

// What `plan` writes reads back, CSV and JSON, as the same table.
TEST(PreviousPlanTest, ReadsWhatPlanWrites) {
  std::istringstream in("key,rate\nhot,25\nwarm,8\nmild,3\n");
  KeyRates rates = ReadKeyRates(in, "r");
  policies::RoutingPlan plan = policies::BuildPlan(
      rates.rates, {.destinations = 4, .q_cap = 10, .slots_per_destination = 2});
  std::ostringstream csv, json;
  WritePlanCsv(csv, rates, plan, 0.5);
  WritePlanJson(json, rates, plan, 0.5);
  std::istringstream csv_in(csv.str()), json_in(json.str());
  PreviousPlan a = ReadPreviousPlanCsv(csv_in, "p.csv", 4);
  PreviousPlan b = ReadPreviousPlanJson(json_in, "p.json", 4);
  EXPECT_EQ(a.keys, (std::vector<std::string>{"hot", "warm", "mild"}));
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.destinations, b.destinations);
  ASSERT_EQ(a.destinations[0].size(), 3u);  // k_b = ceil(25 / 10)
  EXPECT_EQ(a.destinations[0],
            (std::vector<uint32_t>(plan.Members(0).begin(), plan.Members(0).end())));
}

TEST(PreviousPlanTest, BadTablesNameFileLineAndColumn) {
  EXPECT_EQ(PreviousErrorOf("key,rate\n"),
            "old.csv:1:1: expected the header 'key,rate,destinations'");
  EXPECT_EQ(PreviousErrorOf(Rows("a,1,0 9\n")),
            "old.csv:3:7: key 'a': destination 9 is not below --replicas 4");
  EXPECT_EQ(PreviousErrorOf(Rows("a,1,0 x1\n")),
            "old.csv:3:7: key 'a': destination 'x1' is not a non-negative integer");
  EXPECT_EQ(PreviousErrorOf(Rows("ab,1,2  2\n")), "old.csv:3:9: key 'ab': destination 2 repeated");
  EXPECT_EQ(PreviousErrorOf(Rows("a,fast,0\n")),
            "old.csv:3:3: key 'a': rate must be a non-negative number, got 'fast'");
  EXPECT_EQ(PreviousErrorOf(Rows("a,1,0\na,2,1\n")), "old.csv:4:1: key 'a' repeated");
  EXPECT_EQ(PreviousErrorOf(Rows("a,1,\n")), "old.csv:3:5: key 'a': no destinations");
  EXPECT_EQ(PreviousErrorOf(Rows("a,1\n")), "old.csv:3:4: expected 'key,rate,destinations'");
  EXPECT_EQ(PreviousErrorOf("{\"table\": {\"a\": [0, 1],\n  \"b\": [2, 7]}}", true),
            "old.json:2:12: key 'b': destination 7 is not below --replicas 4");
  EXPECT_EQ(PreviousErrorOf("{\"table\": {\"a\": [0.5]}}", true),
            "old.json:1:18: key 'a': destination '0.5' is not a non-negative integer");
  EXPECT_EQ(PreviousErrorOf("{\"keys\": 3}", true),
            "old.json:1:1: expected an object with \"table\"");
  EXPECT_NE(PreviousErrorOf("{\"table\": {\"a\": [0,}", true).find("old.json:1:"),
            std::string::npos);
}

// Rates drift a little: a fresh LPT plan moves most assignments, the plan
// built against the previous one keeps nearly all of them (seed 003 §5.4).
TEST(PreviousPlanTest, PlanningAgainstThePreviousTableMovesLess) {
  KeyRates rates;
  for (int k = 0; k < 400; ++k) {
    rates.keys.push_back(std::to_string(k));
    rates.rates.push_back(100.0 / (k + 1));
  }
  const policies::PlannerConfig config{.destinations = 8, .q_cap = 4, .slots_per_destination = 20};
  policies::RoutingPlan old_plan = policies::BuildPlan(rates.rates, config);
  PreviousPlan previous;
  for (uint32_t b = 0; b < rates.keys.size(); ++b) {
    auto m = old_plan.Members(b);
    if (m.empty()) continue;
    previous.keys.push_back(rates.keys[b]);
    previous.destinations.emplace_back(m.begin(), m.end());
  }
  previous.keys.push_back("gone");  // no longer in the rates: dropped, counted as changed
  previous.destinations.push_back({3});
  KeyRates drifted = rates;
  for (size_t k = 0; k < drifted.rates.size(); ++k) drifted.rates[k] *= k % 2 ? 1.05 : 0.95;

  ChurnReport report;
  policies::RoutingPlan plan = BuildPlanAgainst(drifted, previous, config, 0.05, &report);
  EXPECT_EQ(report.previous_keys, old_plan.admitted_keys() + 1);
  EXPECT_GT(report.fresh_churn, 0.3);
  EXPECT_LT(report.churn, report.fresh_churn / 4);
  EXPECT_LT(report.new_assignments, report.fresh_new_assignments / 4);
  EXPECT_GT(report.churn, 0);  // "gone" at least
  // The same admission as a fresh plan, within the slack of its expected maximum.
  policies::RoutingPlan fresh = policies::BuildPlan(drifted.rates, config);
  EXPECT_EQ(plan.admitted_keys(), fresh.admitted_keys());
  EXPECT_LE(
      *std::max_element(plan.expected_load().begin(), plan.expected_load().end()),
      1.05 * *std::max_element(fresh.expected_load().begin(), fresh.expected_load().end()) + 1e-9);
  std::ostringstream csv;
  WritePlanCsv(csv, drifted, plan, 0.1, &report);
  EXPECT_NE(csv.str().find(" previous_keys=" + std::to_string(report.previous_keys) + " churn="),
            std::string::npos);
  EXPECT_EQ(csv.str().find("gone"), std::string::npos);
}

}  // namespace
}  // namespace kvroute::sim
