// inference-perf's multi-turn chat over its shared-prefix prompts
// (`enable_multi_turn_chat`), as its source does it:
//  - users: each of the groups × prompts_per_group prompts is a user
//    (inference_perf/datagen/synthetic/shared_prefix_datagen.py,
//    _generate_prompts: one LocalUserSession per prompt, shuffled with the
//    prompts); the k-th request of a stage is round k div U of user
//    order[k mod U] (load_lazy_data), so users take turns in the shuffled
//    order.
//  - prompts: a round's prompt is the user's context followed by the user's
//    own prompt, the group's system prompt and the same question every round
//    (inference_perf/apis/user_session.py, UserSessionCompletionAPIData
//    .to_request_body: context + " " + prompt). A completed round makes the
//    context that prompt followed by the response (process_response); a
//    failed one leaves it as it was (process_failure). The context starts
//    empty: the session the generator builds with the system prompt as its
//    context is never registered, and the request looks the session up by id
//    (LocalUserSession.get_instance), which creates an empty one. Round r's
//    prompt is therefore (r + 1)(S + Q) + r·O tokens when every round
//    completes.
//  - timing: a round whose user has a round in flight waits for it, and
//    waiting rounds go in order (LocalUserSession.get_context's lock and
//    queue): it is sent when its user's previous round is done, or at its
//    own time if that is later. No think time.
// Every user's conversation starts afresh at each load stage
// (inference_perf/loadgen/load_generator.py clears the sessions between
// stages).
#ifndef KVROUTE_MODELS_SHARED_PREFIX_CHAT_H_
#define KVROUTE_MODELS_SHARED_PREFIX_CHAT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request.h"
#include "models/shared_prefix_prompts.h"
#include "sim/core/time.h"

namespace kvroute::models {

class SharedPrefixChat {
 public:
  // A context that would pass this many tokens stops growing: kvroute's
  // bound on a conversation, far beyond any server's context window.
  static constexpr uint64_t kMaxContextTokens = uint64_t{1} << 24;
  static constexpr uint32_t kNoClient = UINT32_MAX;

  // `conversation` tells apart the conversations of different load stages:
  // their outputs are different text.
  SharedPrefixChat(std::shared_ptr<const SharedPrefixPrompts> prompts, uint32_t block_size,
                   uint32_t conversation);

  uint32_t users() const { return static_cast<uint32_t>(users_.size()); }
  // The user of the stage's k-th request.
  uint32_t UserOf(uint64_t k) const { return prompts_->PromptOf(k); }

  // A round of `user` is due, for closed-loop client `client` (kNoClient in
  // open loop). True when the user has no round in flight: the round is to
  // be sent now and the user is busy. Otherwise it waits behind the user's
  // earlier rounds and false is returned.
  bool Claim(uint32_t user, uint32_t client);
  // The user's round in flight is done, completed or not. True when the
  // user's first waiting round is due now (the user stays busy), false when
  // the user is free.
  bool Release(uint32_t user, bool completed);
  // The client of the user's round due or in flight.
  uint32_t client(uint32_t user) const { return users_[user].client; }
  // Rounds waiting behind an earlier round of their user.
  uint64_t waiting() const { return waiting_count_; }

  // Fills `out` with the user's next round, sent at `arrival`.
  // REQUIRES: the user is busy with no round emitted since its last Release.
  void Emit(uint32_t user, uint64_t request_id, sim::Time arrival, Request* out);
  // The prompt of the user's round in flight, as segments; valid until the
  // user's Release.
  std::span<const PromptSegment> prompt(uint32_t user) const { return users_[user].context; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // The response to round `round` of `user`: text of its own.
  PromptSegment Output(uint32_t user, uint32_t round) const;

  struct User {
    // The conversation so far; while a round is in flight, that round's prompt.
    std::vector<PromptSegment> context;
    uint64_t tokens = 0;          // in `context`
    uint64_t tokens_before = 0;   // before the round in flight
    uint32_t before = 0;          // context's segments before the round in flight
    uint32_t rounds = 0;          // rounds emitted
    uint32_t client = kNoClient;  // of the round due or in flight
    bool busy = false;
    bool in_flight = false;                // a round was emitted and is not yet released
    uint32_t first = kNone, last = kNone;  // waiting rounds, a list in waiting_
  };
  struct Waiting {
    uint32_t client;
    uint32_t next;
  };

  std::shared_ptr<const SharedPrefixPrompts> prompts_;
  uint32_t conversation_;
  std::vector<User> users_;
  std::vector<Waiting> waiting_;  // the lists' cells; free cells chained from free_
  uint32_t free_ = kNone;
  uint64_t waiting_count_ = 0;
  std::shared_ptr<SequenceHasher> hasher_;  // shared with the requests it has yet to hash
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_SHARED_PREFIX_CHAT_H_
