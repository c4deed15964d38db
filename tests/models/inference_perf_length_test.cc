// inference-perf's length distributions (models/inference_perf_length.h):
// each family's moments within sampling bounds, clipping, int() of a fixed
// count, and the shared-prefix source drawing each prompt's lengths once.
#include "models/inference_perf_length.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "models/shared_prefix_source.h"
#include "models/workload.h"

namespace kvroute::models {
namespace {

using Type = InferencePerfLength::Type;
constexpr int kLengthDraws = 200'000;

struct LengthMoments {
  double mean = 0, sd = 0, lowest = 1e300, highest = -1e300;
};

LengthMoments SampleLengths(const InferencePerfLength& d) {
  sim::RandomStream rng(7, "test");
  double sum = 0, squares = 0;
  LengthMoments m;
  for (int i = 0; i < kLengthDraws; ++i) {
    const double x = d.Draw(rng);
    sum += x;
    squares += x * x;
    m.lowest = std::min(m.lowest, x);
    m.highest = std::max(m.highest, x);
  }
  m.mean = sum / kLengthDraws;
  m.sd = std::sqrt(squares / kLengthDraws - m.mean * m.mean);
  return m;
}

TEST(InferencePerfLengthTest, FixedIsIntOfTheMeanAndDrawsNothing) {
  sim::RandomStream rng(1, "a"), untouched(1, "a");
  EXPECT_EQ(InferencePerfLength::Fixed(7.9).Draw(rng), 7u);
  EXPECT_EQ(rng.NextU64(), untouched.NextU64());
}

TEST(InferencePerfLengthTest, NormalWithinWideBounds) {
  const LengthMoments m =
      SampleLengths({.type = Type::kNormal, .mean = 100, .std_dev = 10, .min = 0, .max = 1000});
  EXPECT_NEAR(m.mean, 100, 0.2);  // 5 standard errors
  EXPECT_NEAR(m.sd, 10, 0.2);
}

// Clipping piles the tails onto the bounds: P(90) = P(x < 90.5) = Phi(-0.19).
TEST(InferencePerfLengthTest, ClippedNotTruncated) {
  const LengthMoments m =
      SampleLengths({.type = Type::kNormal, .mean = 100, .std_dev = 50, .min = 90, .max = 110});
  EXPECT_EQ(m.lowest, 90);
  EXPECT_EQ(m.highest, 110);
  sim::RandomStream rng(7, "test");
  const InferencePerfLength d{
      .type = Type::kNormal, .mean = 100, .std_dev = 50, .min = 90, .max = 110};
  int at_min = 0;
  for (int i = 0; i < kLengthDraws; ++i) at_min += d.Draw(rng) == 90;
  EXPECT_NEAR(static_cast<double>(at_min) / kLengthDraws, 0.5 * std::erfc(0.19 / std::sqrt(2.0)),
              0.005);
}

// Azzalini: mean = loc + scale delta sqrt(2/pi), sd = scale sqrt(1 - 2 delta^2 / pi).
TEST(InferencePerfLengthTest, SkewNormalMoments) {
  const LengthMoments m = SampleLengths(
      {.type = Type::kSkewNormal, .mean = 200, .std_dev = 80, .skew = 2.5, .min = 0, .max = 5000});
  const double delta = 2.5 / std::sqrt(1 + 2.5 * 2.5);
  EXPECT_NEAR(m.mean, 200 + 80 * delta * std::sqrt(2 / M_PI), 0.7);
  EXPECT_NEAR(m.sd, 80 * std::sqrt(1 - 2 * delta * delta / M_PI), 0.7);
}

// Moment-matched: the lognormal has the mean and sd given.
TEST(InferencePerfLengthTest, LognormalHasTheGivenMeanAndSd) {
  const LengthMoments m =
      SampleLengths({.type = Type::kLognormal, .mean = 150, .std_dev = 60, .min = 1, .max = 1e6});
  EXPECT_NEAR(m.mean, 150, 0.8);
  EXPECT_NEAR(m.sd, 60, 1.5);
}

// round(U[10, 21)) clipped to 20: P(10) = 0.5/11, P(20) = 1.5/11, others 1/11.
TEST(InferencePerfLengthTest, UniformOverMinToMaxPlusOne) {
  const LengthMoments m = SampleLengths({.type = Type::kUniform, .min = 10, .max = 20});
  EXPECT_EQ(m.lowest, 10);
  EXPECT_EQ(m.highest, 20);
  EXPECT_NEAR(m.mean, 170.0 / 11, 0.04);
}

TEST(InferencePerfLengthTest, PoissonMeanAndVariance) {
  const LengthMoments m =
      SampleLengths({.type = Type::kPoisson, .mean = 50, .min = 0, .max = 1000});
  EXPECT_NEAR(m.mean, 50, 0.1);
  EXPECT_NEAR(m.sd * m.sd, 50, 1.0);
}

// Each prompt keeps the lengths drawn for it at the start; its group keeps
// its system prompt length.
TEST(InferencePerfLengthTest, SharedPrefixDrawsEachPromptsLengthsOnce) {
  WorkloadConfig c;
  c.shared_prefix.groups = 3;
  c.shared_prefix.prompts_per_group = 4;
  c.shared_prefix.system_tokens = {.type = Type::kUniform, .min = 100, .max = 400};
  c.shared_prefix.question_tokens = {.type = Type::kUniform, .min = 10, .max = 90};
  c.shared_prefix.output_tokens = {.type = Type::kPoisson, .mean = 30, .min = 1, .max = 100};
  SharedPrefixSource source(c, 5, 100, sim::FromSeconds(10));
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> by_prompt;  // first block -> (prompt, output)
  std::map<uint32_t, uint32_t> system_of_group;
  std::vector<uint32_t> distinct_outputs;
  Request r;
  int requests = 0;
  while (source.Next(&r)) {
    ++requests;
    const uint32_t system = source.segments()[0].tokens;
    auto [g, new_group] = system_of_group.emplace(r.key, system);
    EXPECT_EQ(g->second, system) << "group " << r.key;
    const uint64_t question = source.segments()[1].salt;
    auto [it, first] = by_prompt.emplace(question, std::pair{r.prompt_tokens, r.output_tokens});
    EXPECT_EQ(it->second.first, r.prompt_tokens);
    EXPECT_EQ(it->second.second, r.output_tokens);
    if (first) distinct_outputs.push_back(r.output_tokens);
  }
  EXPECT_GT(requests, 500);
  EXPECT_EQ(by_prompt.size(), 12u);
  std::sort(distinct_outputs.begin(), distinct_outputs.end());
  EXPECT_GT(
      std::unique(distinct_outputs.begin(), distinct_outputs.end()) - distinct_outputs.begin(),
      3);  // the prompts' outputs differ
}

}  // namespace
}  // namespace kvroute::models
