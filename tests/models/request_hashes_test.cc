// RequestHashes: a request hashed when first read gets the hashes it would
// have had on arrival, in whatever order requests are read (the shared
// hasher's memory sees them out of order), and is not hashed until then.
#include "models/request_hashes.h"

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/request.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

constexpr uint32_t kHashedBlockTokens = 16;

struct Drawn {
  std::vector<PromptSegment> segments;
  PromptSegment output;
};

Drawn Draw(sim::RandomStream& rng, uint64_t id) {
  Drawn d;
  // Repeating system prompts (kept by the hasher's memory), odd lengths so
  // that segments start inside blocks, then new tokens and an output.
  d.segments.push_back({sim::Combine(1, rng.UniformInt(40)),
                        static_cast<uint32_t>(128 + 16 * rng.UniformInt(20) + rng.UniformInt(3))});
  d.segments.push_back({sim::Combine(2, id), static_cast<uint32_t>(rng.UniformInt(900))});
  d.output = {sim::Combine(3, id), static_cast<uint32_t>(1 + rng.UniformInt(300))};
  return d;
}

TEST(RequestHashesTest, ReadInAnyOrderTheyAreTheArrivalHashes) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  sim::RandomStream rng(5, "test.request_hashes");
  std::vector<Request> requests(3000);
  std::vector<Drawn> drawn;
  for (uint64_t i = 0; i < requests.size(); ++i) {
    drawn.push_back(Draw(rng, i));
    requests[i].hashes.HashLater(hasher, drawn[i].segments, drawn[i].output);
    EXPECT_TRUE(requests[i].hashes.pending());
  }
  // Every third from the back, then the rest from the front: the memory sees
  // the repeated system prompts in an order unlike arrival.
  std::vector<size_t> order;
  for (size_t i = requests.size(); i-- > 0;) {
    if (i % 3 == 0) order.push_back(i);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (i % 3 != 0) order.push_back(i);
  }
  std::vector<uint64_t> want_prompt, want_output;
  for (size_t i : order) {
    const Request& r = requests[i];
    HashSequenceBlocks(drawn[i].segments, drawn[i].output, kHashedBlockTokens, &want_prompt,
                       &want_output);
    // The output first: either read resolves both.
    ASSERT_EQ(r.hashes.output(), want_output) << "request " << i;
    ASSERT_FALSE(r.hashes.pending());
    ASSERT_EQ(r.hashes.prompt(), want_prompt) << "request " << i;
  }
}

TEST(RequestHashesTest, TheHasherOutlivesItsSource) {
  Request r;
  const std::vector<PromptSegment> segments{{7, 100}, {8, 40}};
  {
    auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
    r.hashes.HashLater(hasher, segments, {9, 20});
  }  // the source and its reference are gone; the request still hashes
  std::vector<uint64_t> want_prompt, want_output;
  HashSequenceBlocks(segments, {9, 20}, kHashedBlockTokens, &want_prompt, &want_output);
  EXPECT_EQ(r.hashes.prompt(), want_prompt);
  EXPECT_EQ(r.hashes.output(), want_output);
  EXPECT_EQ(want_prompt.size(), 8u);  // 140 tokens
  EXPECT_EQ(want_output.size(), 2u);  // 160 tokens: blocks 9 and 10
}

TEST(RequestHashesTest, SwappedAndCopiedRequestsCarryTheirDeferredHashes) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  Request a, b;
  a.hashes.HashLater(hasher, std::vector<PromptSegment>{{1, 64}}, {2, 1});
  b.hashes.HashLater(hasher, std::vector<PromptSegment>{{3, 32}}, {4, 1});
  std::swap(a, b);  // how the arrival driver hands a drawn request over
  EXPECT_EQ(a.hashes.prompt().size(), 2u);
  const Request c = b;  // copied while still pending
  EXPECT_TRUE(c.hashes.pending());
  EXPECT_EQ(b.hashes.prompt().size(), 4u);
  EXPECT_EQ(c.hashes.prompt(), b.hashes.prompt());
}

TEST(RequestHashesTest, WritingOrClearingEndsADeferral) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  Request r;
  r.hashes.HashLater(hasher, std::vector<PromptSegment>{{1, 64}}, {2, 16});
  r.hashes.mutable_prompt()->push_back(99);  // hashed first, then written
  EXPECT_FALSE(r.hashes.pending());
  EXPECT_EQ(r.hashes.prompt().size(), 5u);
  EXPECT_EQ(r.hashes.prompt().back(), 99u);
  EXPECT_EQ(r.hashes.output().size(), 1u);

  r.hashes.HashLater(hasher, std::vector<PromptSegment>{{1, 64}}, {2, 16});
  r.hashes.Clear();  // a released pool slot: nothing left to hash
  EXPECT_FALSE(r.hashes.pending());
  EXPECT_TRUE(r.hashes.prompt().empty());
  EXPECT_TRUE(r.hashes.output().empty());
  EXPECT_EQ(hasher.use_count(), 1);  // no request holds the hasher any more
}

TEST(RequestHashesTest, AFinishedRequestsStorageGoesToTheNextOneHashed) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  const std::vector<PromptSegment> segments{{1, 1600}};
  Request finished, waiting, admitted;
  finished.hashes.HashLater(hasher, segments, {2, 16});
  const uint64_t* storage = finished.hashes.prompt().data();
  waiting.hashes.HashLater(hasher, segments, {3, 16});
  admitted.hashes.HashLater(hasher, segments, {4, 16});
  finished.hashes.Clear();  // its pool slot now takes `waiting`, never hashed
  EXPECT_EQ(finished.hashes.prompt().capacity(), 0u);
  EXPECT_EQ(admitted.hashes.prompt().data(), storage);
  EXPECT_EQ(admitted.hashes.prompt().size(), 100u);
  EXPECT_TRUE(waiting.hashes.pending());
}

// A chain is lent storage of its own size class: a short prompt does not
// take a long one's storage while a short one's is kept, nor a long prompt a
// short one's, and an output completing no block takes none.
TEST(RequestHashesTest, StorageIsLentToChainsItFits) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  const std::vector<PromptSegment> long_prompt{{1, 1600}}, short_prompt{{1, 160}};
  Request long_done, short_done;
  long_done.hashes.HashLater(hasher, long_prompt, {2, 16});
  short_done.hashes.HashLater(hasher, short_prompt, {3, 16});
  const uint64_t* long_storage = long_done.hashes.prompt().data();
  const uint64_t* short_storage = short_done.hashes.prompt().data();
  long_done.hashes.Clear();
  short_done.hashes.Clear();
  Request short_next, long_next, no_output;
  short_next.hashes.HashLater(hasher, short_prompt, {4, 16});
  EXPECT_EQ(short_next.hashes.prompt().data(), short_storage);
  no_output.hashes.HashLater(hasher, short_prompt, {5, 3});
  EXPECT_TRUE(no_output.hashes.output().empty());
  EXPECT_EQ(no_output.hashes.output().capacity(), 0u);
  long_next.hashes.HashLater(hasher, long_prompt, {6, 16});
  EXPECT_EQ(long_next.hashes.prompt().data(), long_storage);
  EXPECT_EQ(long_next.hashes.prompt().size(), 100u);
}

TEST(RequestHashesTest, ForgottenHashesAreComputedAgainWhenRead) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  const std::vector<PromptSegment> segments{{1, 1600}, {5, 37}};
  Request queued, next;
  queued.hashes.HashLater(hasher, segments, {2, 40});
  EXPECT_FALSE(queued.hashes.Forget());  // nothing computed yet
  const std::vector<uint64_t> prompt = queued.hashes.prompt();
  const std::vector<uint64_t> output = queued.hashes.output();
  const uint64_t* storage = queued.hashes.prompt().data();
  EXPECT_TRUE(queued.hashes.Forget());
  EXPECT_TRUE(queued.hashes.pending());
  // The storage serves the next request hashed whose chain it fits.
  next.hashes.HashLater(hasher, std::vector<PromptSegment>{{3, 1200}}, {4, 16});
  EXPECT_EQ(next.hashes.prompt().data(), storage);
  EXPECT_EQ(next.hashes.prompt().size(), 75u);
  EXPECT_EQ(queued.hashes.prompt(), prompt);
  EXPECT_EQ(queued.hashes.output(), output);
  EXPECT_EQ(prompt.size(), 102u);  // 1,637 tokens
  EXPECT_EQ(output.size(), 2u);    // 1,677 tokens: blocks 103 and 104
}

std::vector<uint64_t> Vec(std::span<const uint64_t> s) { return {s.begin(), s.end()}; }
std::vector<uint64_t> First(const std::vector<uint64_t>& v, size_t n) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n)};
}

TEST(RequestHashesTest, APrefixIsTheWholesFirstHashesTheRestComesWhenRead) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  const std::vector<PromptSegment> segments{{1, 1600}, {5, 37}};
  std::vector<uint64_t> want_prompt, want_output;
  HashSequenceBlocks(segments, {2, 40}, kHashedBlockTokens, &want_prompt, &want_output);
  auto first = [&](size_t n) { return First(want_prompt, n); };
  Request r;
  r.hashes.HashLater(hasher, segments, {2, 40});
  EXPECT_EQ(r.hashes.prompt_blocks(), 102u);  // counted, not hashed
  EXPECT_EQ(r.hashes.segments().size(), 2u);
  EXPECT_EQ(r.hashes.block_size(), kHashedBlockTokens);
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(10)), first(10));
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(50)), first(50));
  EXPECT_TRUE(r.hashes.pending());
  const Request copy = r;          // copied with its prefix
  EXPECT_TRUE(r.hashes.Forget());  // the prefix's storage goes back
  EXPECT_TRUE(r.hashes.pending());
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(30)), first(30));
  EXPECT_EQ(r.hashes.prompt(), want_prompt);
  EXPECT_EQ(r.hashes.output(), want_output);
  EXPECT_EQ(copy.hashes.prompt(), want_prompt);
  EXPECT_EQ(copy.hashes.output(), want_output);
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(7)), first(7));  // read from the whole
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(1000)), want_prompt);
  r.hashes.mutable_prompt();  // written: nothing to hash again from
  EXPECT_TRUE(r.hashes.segments().empty());
  EXPECT_EQ(r.hashes.block_size(), 0u);
}

TEST(RequestHashesTest, APeekedPrefixIsTheWholesFirstHashesAndNothingIsKept) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  // New tokens too long for the hasher's memory: a prefix stops inside them.
  const std::vector<PromptSegment> segments{{1, 1600}, {5, 5000}};
  std::vector<uint64_t> want_prompt, want_output;
  HashSequenceBlocks(segments, {2, 40}, kHashedBlockTokens, &want_prompt, &want_output);
  auto first = [&](size_t n) { return First(want_prompt, n); };
  Request r;
  r.hashes.HashLater(hasher, segments, {2, 40});
  // Each look afresh; one look reading further, going on where it stopped.
  std::vector<uint64_t> scratch;
  SequenceHasher::PrefixCursor at;
  auto peek = [&](uint32_t blocks) {
    scratch.clear();
    at = {};
    return Vec(r.hashes.PeekPrefix(blocks, &scratch, &at));
  };
  EXPECT_EQ(peek(40), first(40));
  EXPECT_EQ(Vec(r.hashes.PeekPrefix(250, &scratch, &at)), first(250));  // on from block 40
  EXPECT_EQ(scratch, first(scratch.size()));  // the prefix once: nothing hashed twice into it
  EXPECT_FALSE(r.hashes.Forget());            // nothing kept: still only segments
  EXPECT_EQ(Vec(r.hashes.PromptPrefix(105)), first(105));
  EXPECT_EQ(peek(3), first(3));      // from the prefix
  EXPECT_EQ(peek(300), first(300));  // past it
  EXPECT_EQ(peek(1000), want_prompt);
  EXPECT_EQ(r.hashes.prompt(), want_prompt);
  EXPECT_EQ(peek(9), first(9));  // from the whole
}

TEST(RequestHashesTest, WrittenOrClearedHashesAreNotForgotten) {
  auto hasher = std::make_shared<SequenceHasher>(kHashedBlockTokens);
  Request r;
  r.hashes.HashLater(hasher, std::vector<PromptSegment>{{1, 64}}, {2, 16});
  r.hashes.mutable_prompt()->push_back(99);  // no longer the segments' chain
  EXPECT_FALSE(r.hashes.Forget());
  EXPECT_EQ(r.hashes.prompt().back(), 99u);
  r.hashes.Clear();
  EXPECT_FALSE(r.hashes.Forget());
  EXPECT_TRUE(r.hashes.prompt().empty());
  // Written directly, never deferred: nothing to hash them again from.
  Request direct;
  HashPromptBlocks(std::vector<PromptSegment>{{1, 64}}, kHashedBlockTokens,
                   direct.hashes.mutable_prompt());
  EXPECT_FALSE(direct.hashes.Forget());
  EXPECT_EQ(direct.hashes.prompt().size(), 4u);
}

}  // namespace
}  // namespace kvroute::models
