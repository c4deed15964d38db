#include "models/shared_prefix_chat.h"

#include <cassert>
#include <utility>

#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr uint64_t kChatOutputSalt = 0x5350434841544f55ULL;

}  // namespace

SharedPrefixChat::SharedPrefixChat(std::shared_ptr<const SharedPrefixPrompts> prompts,
                                   uint32_t block_size, uint32_t conversation)
    : prompts_(std::move(prompts)),
      conversation_(conversation),
      users_(prompts_->prompts()),
      hasher_(std::make_shared<SequenceHasher>(block_size)) {}

bool SharedPrefixChat::Claim(uint32_t user, uint32_t client) {
  User& u = users_[user];
  if (!u.busy) {
    u.busy = true;
    u.client = client;
    return true;
  }
  uint32_t cell = free_;
  if (cell == kNone) {
    cell = static_cast<uint32_t>(waiting_.size());
    waiting_.push_back({});
  } else {
    free_ = waiting_[cell].next;
  }
  waiting_[cell] = {client, kNone};
  if (u.last == kNone) {
    u.first = cell;
  } else {
    waiting_[u.last].next = cell;
  }
  u.last = cell;
  ++waiting_count_;
  return false;
}

PromptSegment SharedPrefixChat::Output(uint32_t user, uint32_t round) const {
  const uint64_t salt = sim::Combine(sim::Combine(kChatOutputSalt, conversation_), user);
  return {sim::Combine(salt, round), prompts_->output_tokens[user]};
}

bool SharedPrefixChat::Release(uint32_t user, bool completed) {
  User& u = users_[user];
  assert(u.busy);
  if (u.in_flight) {
    u.in_flight = false;
    const PromptSegment output = Output(user, u.rounds - 1);
    // The next round would send this context and the user's prompt again.
    const uint64_t next_prompt = u.tokens + output.tokens + (u.tokens - u.tokens_before);
    if (completed && next_prompt <= kMaxContextTokens) {
      // process_response: the context becomes the prompt and the response.
      u.context.push_back(output);
      u.tokens += output.tokens;
    } else {
      // process_failure: the context stays what it was before the round.
      u.context.resize(u.before);
      u.tokens = u.tokens_before;
    }
  }
  if (u.first == kNone) {
    u.busy = false;
    return false;
  }
  const uint32_t cell = u.first;
  u.client = waiting_[cell].client;
  u.first = waiting_[cell].next;
  if (u.first == kNone) u.last = kNone;
  waiting_[cell].next = free_;
  free_ = cell;
  --waiting_count_;
  return true;
}

void SharedPrefixChat::Emit(uint32_t user, uint64_t request_id, sim::Time arrival, Request* out) {
  User& u = users_[user];
  assert(u.busy && !u.in_flight);
  u.in_flight = true;
  u.before = static_cast<uint32_t>(u.context.size());
  u.tokens_before = u.tokens;
  prompts_->AppendSegments(user, &u.context);
  for (uint32_t i = u.before; i < u.context.size(); ++i) u.tokens += u.context[i].tokens;
  const PromptSegment output = Output(user, u.rounds++);
  const uint32_t group = prompts_->group(user);
  out->id = request_id;
  out->arrival = arrival;
  out->key = group;
  out->tenant = group;
  out->session = user;
  out->prompt_tokens = static_cast<uint32_t>(u.tokens);
  out->output_tokens = output.tokens;
  out->hashes.HashLater(hasher_, u.context, output);
}

}  // namespace kvroute::models
