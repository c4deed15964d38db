#include "sim/core/did_you_mean.h"

#include <gtest/gtest.h>

#include "sim/core/choice_table.h"

namespace kvroute::sim {
namespace {

const std::vector<std::string> kKeys{"name", "replicas", "weight", "schedule", "policy"};

TEST(DidYouMeanTest, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(EditDistance("keys", "keys"), 0u);
  EXPECT_EQ(EditDistance("kyes", "keys"), 1u);
  EXPECT_EQ(EditDistance("replica", "replicas"), 1u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(DidYouMeanTest, SuggestsTheClosestValidName) {
  EXPECT_EQ(ClosestName("replica", kKeys), "replicas");
  EXPECT_EQ(ClosestName("wieght", kKeys), "weight");
  EXPECT_EQ(DidYouMean("polciy", kKeys), "; did you mean 'policy'?");
}

TEST(DidYouMeanTest, StaysSilentForDistantOrValidNames) {
  EXPECT_EQ(ClosestName("frobnicate", kKeys), std::nullopt);
  EXPECT_EQ(ClosestName("name", kKeys), std::nullopt);
  EXPECT_EQ(ClosestName("", kKeys), std::nullopt);
  EXPECT_EQ(DidYouMean("x", kKeys), "");
}

TEST(DidYouMeanTest, AnUnambiguousAbbreviationIsSuggested) {
  EXPECT_EQ(ClosestName("sched", kKeys), "schedule");
  const std::vector<std::string> two{"policy", "policies"};
  EXPECT_EQ(ClosestName("pol", two), std::nullopt);
}

TEST(DidYouMeanTest, JoinNamesListsEachNameOnce) {
  EXPECT_EQ(JoinNames(std::vector<std::string>{"a", "b", "a", "c", "b"}), "a, b, c");
  EXPECT_EQ(SplitNames("a, b,c"), (std::vector<std::string>{"a", "b", "c"}));
}

enum class Color { kRed, kGreen };

TEST(ChoiceTableTest, FindsNamesAndListsTheValidOnes) {
  ChoiceTable<Color> colors("color", {{"red", Color::kRed}, {"green", Color::kGreen}});
  ASSERT_NE(colors.Find("green"), nullptr);
  EXPECT_EQ(*colors.Find("green"), Color::kGreen);
  EXPECT_EQ(colors.Find("blue"), nullptr);
  EXPECT_EQ(colors.NameOf(Color::kRed), "red");
  EXPECT_EQ(colors.Unknown("gren"),
            "unknown color 'gren' (valid: red, green; did you mean 'green'?)");
}

}  // namespace
}  // namespace kvroute::sim
