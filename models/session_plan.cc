#include "models/session_plan.h"

#include <algorithm>
#include <cmath>

#include "models/prompt_salts.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"
#include "sim/core/slot_pool.h"

namespace kvroute::models {
namespace {

PromptSegment OutputSegment(const Session& s, uint32_t step) {
  return {sim::Combine(sim::Combine(kOutputSalt, s.id), step), s.steps[step].output_tokens};
}

// A step's new tokens: the user's text, or each tool call's output in call
// order. Call 0 keeps the hash a single call has always had, so results
// without parallel calls are unchanged.
void AppendNewSegments(const Session& s, uint32_t step, std::vector<PromptSegment>* history) {
  const SessionStep& st = s.steps[step];
  const uint64_t salt = sim::Combine(sim::Combine(st.tool ? kToolSalt : kUserSalt, s.id), step);
  if (!st.tool) {
    history->push_back({salt, st.new_tokens});
    return;
  }
  for (uint32_t c = 0; c < st.calls; ++c) {
    history->push_back({c == 0 ? salt : sim::Combine(salt, c), s.call_tokens[st.first_call + c]});
  }
}

}  // namespace

SessionPlanner::SessionPlanner(const WorkloadConfig& config, uint64_t seed)
    : config_(config),
      seed_(seed),
      shares_(KeyShares(config.keys, config.rates)),
      key_table_(shares_),
      document_table_(config.rag.DocumentWeights()) {}

double SessionPlanner::MeanSteps() const {
  return std::max(1.0, config_.sessions.turns.MeanDraw()) *
         (1 + config_.sessions.agent.tool_calls.MeanDraw());
}

// A fixed count takes no variate, so sessions without parallel calls draw
// exactly what they always drew; any other distribution takes one per step.
uint32_t SessionPlanner::ParallelCalls(sim::RandomStream& rng) const {
  const LengthDistribution& d = config_.sessions.agent.parallel_calls;
  const uint32_t calls = d.kind == LengthDistribution::Kind::kFixed
                             ? static_cast<uint32_t>(std::lround(d.value))
                             : d.Draw(rng);
  return std::max<uint32_t>(1, calls);
}

// Every draw comes in a fixed order from the session's own stream, and each
// length consumes one variate whatever its value, so a session is the same
// for every policy, load and timing (DESIGN.md, "Randomness").
void SessionPlanner::Draw(uint64_t id, Session* out) const {
  sim::RandomStream rng(seed_, "workload.session", id);
  const SessionConfig& sc = config_.sessions;
  Session& s = *out;
  s.id = id;
  s.key = key_table_.Draw(rng);
  s.next = 0;
  s.history.clear();
  s.steps.clear();
  s.call_tokens.clear();
  const bool private_prompt = rng.Uniform() < config_.no_prefix_share;
  const uint64_t private_salt = sim::Combine(kPrivateSalt, id);
  if (config_.system_tokens > 0) {
    const uint64_t salt = private_prompt ? private_salt : sim::Combine(kSystemSalt, s.key);
    s.history.push_back({salt, config_.system_tokens});
  }
  if (config_.rag.documents > 0) {
    const uint32_t chunks = config_.rag.chunks.Draw(rng);
    for (uint32_t c = 0; c < chunks; ++c) {
      const uint32_t doc = document_table_.Draw(rng);
      s.history.push_back({sim::Combine(private_prompt ? private_salt : kDocumentSalt, doc + 1),
                           config_.rag.chunk_tokens});
    }
  }
  const uint32_t turns = std::max<uint32_t>(1, sc.turns.Draw(rng));
  for (uint32_t t = 0; t < turns; ++t) {
    SessionStep user;
    user.new_tokens = config_.new_tokens.Draw(rng);
    user.output_tokens = std::max<uint32_t>(1, config_.output_tokens.Draw(rng));
    const double think = std::max(0.0, sc.think_time_s.Sample(rng));
    user.gap_s = t == 0 ? 0.0 : think;
    s.steps.push_back(user);
    const uint32_t tool_steps = sc.agent.tool_calls.Draw(rng);
    for (uint32_t k = 0; k < tool_steps; ++k) {
      SessionStep tool{.tool = true};
      tool.first_call = static_cast<uint32_t>(s.call_tokens.size());
      tool.calls = ParallelCalls(rng);
      for (uint32_t c = 0; c < tool.calls; ++c) {
        const uint32_t tokens = sc.agent.tool_output_tokens.Draw(rng);
        s.call_tokens.push_back(tokens);
        tool.new_tokens += tokens;
        // The calls run concurrently: the step waits for the slowest.
        tool.gap_s = std::max(tool.gap_s, sc.agent.tool_latency_s.Sample(rng));
      }
      tool.output_tokens = std::max<uint32_t>(1, config_.output_tokens.Draw(rng));
      s.steps.push_back(tool);
    }
  }
  // A prompt has at least one token.
  if (s.history.empty() && s.steps[0].new_tokens == 0) s.steps[0].new_tokens = 1;
}

void SessionPlanner::Emit(Session* session, uint64_t request_id, sim::Time arrival,
                          Request* out) const {
  Session& s = *session;
  const uint32_t step = s.next++;
  if (step > 0) s.history.push_back(OutputSegment(s, step - 1));
  AppendNewSegments(s, step, &s.history);
  out->id = request_id;
  out->arrival = arrival;
  out->key = s.key;
  out->tenant = TenantOfKey(s.key, config_.tenants);
  out->session = s.id;
  out->prompt_tokens = TotalTokens(s.history);
  out->output_tokens = s.steps[step].output_tokens;
  HashSequenceBlocks(s.history, OutputSegment(s, step),
                     static_cast<uint32_t>(config_.block_size_tokens), out->hashes.mutable_prompt(),
                     out->hashes.mutable_output());
}

SessionSource::SessionSource(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end)
    : planner_(config, seed),
      arrivals_(config.arrivals, sim::RandomStream(seed, "workload.arrivals")),
      session_rate_(qps / planner_.MeanSteps()),
      end_(end) {
  AdvanceFresh();
}

void SessionSource::AdvanceFresh() {
  unit_time_ += arrivals_.NextGap();
  const double t = unit_time_ / session_rate_;
  fresh_ = t < sim::ToSeconds(end_) ? sim::FromSeconds(t) : sim::kNever;
}

namespace {

bool Later(sim::Time a_time, uint64_t a_order, sim::Time b_time, uint64_t b_order) {
  return a_time != b_time ? a_time > b_time : a_order > b_order;
}

}  // namespace

bool SessionSource::Next(Request* out) {
  auto later = [](const Pending& a, const Pending& b) {
    return Later(a.arrival, a.order, b.arrival, b.order);
  };
  // A session starting before the earliest pending step goes first.
  if (fresh_ != sim::kNever && (pending_.empty() || fresh_ < pending_.front().arrival)) {
    const uint32_t slot = sim::TakeSlot(sessions_, free_);
    planner_.Draw(next_session_++, &sessions_[slot]);
    pending_.push_back({fresh_, next_order_++, slot});
    std::push_heap(pending_.begin(), pending_.end(), later);
    AdvanceFresh();
  }
  if (pending_.empty()) return false;
  std::pop_heap(pending_.begin(), pending_.end(), later);
  const Pending p = pending_.back();
  pending_.pop_back();
  Session& s = sessions_[p.slot];
  planner_.Emit(&s, next_id_++, p.arrival, out);
  last_segments_.assign(s.history.begin(), s.history.end());
  if (!s.done()) {
    const sim::Time next = p.arrival + sim::FromSeconds(s.next_gap_s());
    if (next < end_) {
      pending_.push_back({next, next_order_++, p.slot});
      std::push_heap(pending_.begin(), pending_.end(), later);
      return true;
    }
  }
  free_.push_back(p.slot);
  return true;
}

}  // namespace kvroute::models
