// inference-perf's shared-prefix workload (SharedPrefixConfig in workload.h):
// a fixed set of prompts (models/shared_prefix_prompts.h), each a group's
// system prompt and its own question, sent over and over in one shuffled
// order, with Poisson arrivals at the load. With multi-turn chat each prompt
// is a user whose rounds re-send the conversation (models/shared_prefix_chat.h).
#ifndef KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_
#define KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_

#include <memory>
#include <vector>

#include "models/request_source.h"
#include "models/shared_prefix_chat.h"
#include "models/shared_prefix_prompts.h"
#include "models/workload.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {

class SharedPrefixSource : public RequestSource {
 public:
  // Requests arrive at `qps` (Poisson) until `end` (exclusive). The prompts
  // depend on the seed only, so every stage and every policy sees the same
  // prompt order; `stage` names the stage's conversations (multi-turn chat).
  SharedPrefixSource(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end,
                     uint32_t stage = 0);

  // With multi-turn chat, the rounds as an instant cluster would see them:
  // each is done (completed) before the next is due.
  bool Next(Request* out) override;
  // The next request's arrival, without its content (what a simulation of
  // multi-turn chat needs: a round's content depends on what became of its
  // user's earlier rounds). False from the end on.
  bool NextArrival(sim::Time* arrival);
  // The users' conversations; null without multi-turn chat.
  SharedPrefixChat* chat() { return chat_.get(); }

  const std::vector<double>& key_shares() const override { return shares_; }
  std::span<const PromptSegment> segments() const override { return segments_; }
  std::vector<double> tenant_shares() const override { return shares_; }

 private:
  std::shared_ptr<const SharedPrefixPrompts> prompts_;
  std::unique_ptr<SharedPrefixChat> chat_;
  double qps_;
  sim::Time end_;
  std::vector<double> shares_;  // per group
  sim::RandomStream arrival_rng_;
  double time_s_ = 0;
  uint64_t next_id_ = 0;
  std::vector<PromptSegment> segments_;
  std::shared_ptr<SequenceHasher> hasher_;  // shared with the requests it has yet to hash
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_SHARED_PREFIX_SOURCE_H_
