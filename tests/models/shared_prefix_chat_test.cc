// inference-perf's multi-turn chat over its shared-prefix prompts
// (models/shared_prefix_chat.h): what each round sends, by value.
#include "models/shared_prefix_chat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "models/shared_prefix_source.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kSystem = 40, kQuestion = 13, kOutput = 30;

WorkloadConfig SharedPrefixChatConfig(bool chat = true) {
  WorkloadConfig c;
  c.shared_prefix.groups = 2;
  c.shared_prefix.prompts_per_group = 3;
  c.shared_prefix.system_tokens = InferencePerfLength::Fixed(kSystem);
  c.shared_prefix.question_tokens = InferencePerfLength::Fixed(kQuestion);
  c.shared_prefix.output_tokens = InferencePerfLength::Fixed(kOutput);
  c.shared_prefix.multi_turn_chat = chat;
  return c;
}

std::vector<Request> DrawRequests(const WorkloadConfig& c, uint64_t seed, size_t n,
                                  uint32_t stage = 0) {
  SharedPrefixSource source(c, seed, 10, sim::kNever, stage);
  std::vector<Request> out(n);
  for (Request& r : out) EXPECT_TRUE(source.Next(&r));
  return out;
}

std::vector<uint64_t> SequenceHashes(const Request& r) {
  std::vector<uint64_t> all = r.hashes.prompt();
  all.insert(all.end(), r.hashes.output().begin(), r.hashes.output().end());
  return all;
}

// Round r of a user sends its r earlier prompts and responses and its own
// prompt again: (r + 1)(S + Q) + r·O tokens, whose blocks start with every
// full block of the previous round's prompt and response. Users take turns
// in the order of the single-turn workload's prompts, and a user's first
// round is its single-turn prompt.
TEST(SharedPrefixChatTest, RoundsResendTheConversationSoFar) {
  const uint32_t users = 6, rounds = 5;
  const std::vector<Request> chat = DrawRequests(SharedPrefixChatConfig(), 3, users * rounds);
  const std::vector<Request> single = DrawRequests(SharedPrefixChatConfig(false), 3, users);
  std::map<uint64_t, std::vector<Request>> by_user;
  for (size_t k = 0; k < chat.size(); ++k) {
    const Request& r = chat[k];
    EXPECT_EQ(r.key, single[k % users].key) << k;
    EXPECT_EQ(r.output_tokens, kOutput);
    by_user[r.session].push_back(r);
  }
  ASSERT_EQ(by_user.size(), users);
  for (const auto& [user, turns] : by_user) {
    ASSERT_EQ(turns.size(), rounds);
    EXPECT_EQ(turns[0].key, user / 3);  // prompt p belongs to group p / prompts_per_group
    for (uint32_t r = 0; r < rounds; ++r) {
      EXPECT_EQ(turns[r].prompt_tokens, (r + 1) * (kSystem + kQuestion) + r * kOutput);
      if (r == 0) continue;
      const std::vector<uint64_t> earlier = SequenceHashes(turns[r - 1]);
      EXPECT_EQ(earlier.size(), (turns[r - 1].prompt_tokens + kOutput) / 16);
      ASSERT_GE(turns[r].hashes.prompt().size(), earlier.size());
      EXPECT_TRUE(std::equal(earlier.begin(), earlier.end(), turns[r].hashes.prompt().begin()))
          << "user " << user << " round " << r;
      EXPECT_NE(turns[r].hashes.output(), turns[r - 1].hashes.output());
    }
  }
  // The first round of the k-th user to speak is the single-turn k-th prompt.
  for (size_t k = 0; k < users; ++k) {
    EXPECT_EQ(chat[k].hashes.prompt(), single[k].hashes.prompt()) << k;
    EXPECT_EQ(chat[k].prompt_tokens, kSystem + kQuestion);
  }
}

// Same seed, same rounds; another seed shuffles the users differently. A
// later stage's conversations start over with the same prompts but other
// responses.
TEST(SharedPrefixChatTest, DeterministicPerSeedAndStage) {
  const std::vector<Request> a = DrawRequests(SharedPrefixChatConfig(), 5, 40),
                             b = DrawRequests(SharedPrefixChatConfig(), 5, 40);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].arrival, b[k].arrival);
    EXPECT_EQ(a[k].session, b[k].session);
    EXPECT_EQ(a[k].hashes.prompt(), b[k].hashes.prompt());
    EXPECT_EQ(a[k].hashes.output(), b[k].hashes.output());
  }
  WorkloadConfig c = SharedPrefixChatConfig();
  c.shared_prefix.groups = 20;
  std::vector<uint64_t> users[2];
  for (uint64_t seed : {5, 6}) {
    for (const Request& r : DrawRequests(c, seed, 60)) users[seed - 5].push_back(r.session);
  }
  EXPECT_NE(users[0], users[1]);
  const std::vector<Request> later = DrawRequests(SharedPrefixChatConfig(), 5, 6, 1);
  for (size_t k = 0; k < later.size(); ++k) {
    EXPECT_EQ(later[k].hashes.prompt(), a[k].hashes.prompt());
    EXPECT_NE(later[k].hashes.output(), a[k].hashes.output());
  }
}

// A failed round leaves the context as it was (inference-perf's
// process_failure): the next round sends the failed round's prompt again.
TEST(SharedPrefixChatTest, AFailedRoundLeavesTheContext) {
  const WorkloadConfig c = SharedPrefixChatConfig();
  SharedPrefixChat chat(std::make_shared<const SharedPrefixPrompts>(c.shared_prefix, 1), 16, 0);
  Request r[4];
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(chat.Claim(2, SharedPrefixChat::kNoClient));
    chat.Emit(2, i, 0, &r[i]);
    EXPECT_FALSE(chat.Release(2, /*completed=*/i != 1));
  }
  EXPECT_EQ(r[1].prompt_tokens, 2 * (kSystem + kQuestion) + kOutput);
  EXPECT_EQ(r[2].prompt_tokens, r[1].prompt_tokens);
  EXPECT_EQ(r[2].hashes.prompt(), r[1].hashes.prompt());
  EXPECT_NE(r[2].hashes.output(), r[1].hashes.output());  // another response
  EXPECT_EQ(r[3].prompt_tokens, r[2].prompt_tokens + kOutput + kSystem + kQuestion);
}

// A round due while its user has one in flight waits; waiting rounds go in
// the order they became due, each with its own client, and other users are
// not held up.
TEST(SharedPrefixChatTest, RoundsWaitForTheirUserInOrder) {
  const WorkloadConfig c = SharedPrefixChatConfig();
  SharedPrefixChat chat(std::make_shared<const SharedPrefixPrompts>(c.shared_prefix, 1), 16, 0);
  Request r;
  ASSERT_TRUE(chat.Claim(4, 7));
  EXPECT_FALSE(chat.Claim(4, 8));
  EXPECT_TRUE(chat.Claim(1, 9));
  EXPECT_FALSE(chat.Claim(4, 10));
  EXPECT_EQ(chat.waiting(), 2u);
  EXPECT_EQ(chat.client(4), 7u);
  chat.Emit(4, 0, 0, &r);
  ASSERT_TRUE(chat.Release(4, true));
  EXPECT_EQ(chat.client(4), 8u);
  EXPECT_EQ(chat.waiting(), 1u);
  chat.Emit(4, 1, 0, &r);
  EXPECT_EQ(r.prompt_tokens, 2 * (kSystem + kQuestion) + kOutput);
  ASSERT_TRUE(chat.Release(4, true));
  EXPECT_EQ(chat.client(4), 10u);
  chat.Emit(4, 2, 0, &r);
  EXPECT_FALSE(chat.Release(4, true));
  EXPECT_EQ(chat.waiting(), 0u);
  EXPECT_TRUE(chat.Claim(4, 11));  // free again
  chat.Emit(1, 3, 0, &r);
  EXPECT_EQ(r.prompt_tokens, kSystem + kQuestion);
}

}  // namespace
}  // namespace kvroute::models
