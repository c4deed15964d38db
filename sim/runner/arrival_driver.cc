#include "sim/runner/arrival_driver.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace kvroute::sim {
namespace {

double StageQps(const models::LoadStage& s) { return s.qps > 0 ? s.qps : 1.0; }

}  // namespace

ArrivalDriver::ArrivalDriver(const models::WorkloadConfig& config, uint64_t seed, double qps,
                             Time end)
    : config_(config), seed_(seed), end_(end) {
  const bool closed = config.closed_loop.enabled || config.closed_loop.clients > 0;
  const bool trace_sessions =
      config.trace.format != models::TraceConfig::Format::kNone && config.trace.closed_loop;
  if ((closed || config.sessions.closed_loop || trace_sessions) && !config.stages.empty()) {
    throw std::invalid_argument("closed-loop clients and load stages cannot be combined");
  }
  if (config.clients.enabled() && !config.stages.empty()) {
    throw std::invalid_argument(
        "workload.clients sets the load over time itself: it cannot be combined with load stages");
  }
  if (trace_sessions) {
    mode_ = Mode::kSessions;
    auto replay = models::MakeTraceReplay(config, qps, end);
    trace_plan_ = std::make_unique<models::TraceSessionPlan>(
        *replay, static_cast<uint32_t>(config.block_size_tokens));
    planner_ = trace_plan_.get();
    source_ = std::move(replay);
  } else if (config.sessions.closed_loop) {
    mode_ = Mode::kSessions;
    auto source = std::make_unique<models::SessionSource>(config, seed, 1.0, kNever);
    planner_ = &source->planner();
    const double mean_steps = source->planner().MeanSteps();
    source_ = std::move(source);
    if (closed) {
      clients_ = config.closed_loop.clients > 0
                     ? config.closed_loop.clients
                     : static_cast<uint32_t>(std::max(1.0, std::round(qps)));
      sessions_.resize(clients_);
      client_sessions_.assign(clients_, 0);
      for (uint32_t c = 0; c < clients_; ++c) {
        think_rng_.emplace_back(seed, "workload.closed_loop.think", c);
      }
    } else {
      // The same start times as SessionSource's: the unit-rate process over
      // the session rate.
      session_starts_ = std::make_unique<models::ArrivalProcess>(
          config.arrivals, RandomStream(seed, "workload.arrivals"));
      session_rate_ = qps / mean_steps;
    }
  } else if (closed) {
    mode_ = Mode::kClosed;
    // Without a count of its own, the point's load is the number of clients.
    clients_ = config.closed_loop.clients > 0
                   ? config.closed_loop.clients
                   : static_cast<uint32_t>(std::max(1.0, std::round(qps)));
    // The workload's own times are ignored: it only orders the content.
    source_ = MakeSource(1.0, kNever, 0);
    for (uint32_t c = 0; c < clients_; ++c) {
      think_rng_.emplace_back(seed, "workload.closed_loop.think", c);
    }
  } else if (!config.stages.empty()) {
    mode_ = Mode::kStaged;
    // The first stage's workload, until Start begins it.
    source_ = MakeSource(StageQps(config.stages[0]), kNever, 0);
  } else {
    source_ = MakeSource(qps, end, 0);
  }
}

std::unique_ptr<models::RequestSource> ArrivalDriver::MakeSource(double qps, Time end,
                                                                 uint32_t stage) {
  if (config_.shared_prefix.groups == 0 || !config_.shared_prefix.multi_turn_chat) {
    return models::MakeRequestSource(config_, seed_, qps, end);
  }
  auto source = std::make_unique<models::SharedPrefixSource>(config_, seed_, qps, end, stage);
  chat_source_ = source.get();
  chat_due_ = 0;
  return source;
}

void ArrivalDriver::Start(EventQueue& events) {
  switch (mode_) {
    case Mode::kOpen:
      if (chat_source_ != nullptr) {
        has_next_ = chat_source_->NextArrival(&chat_next_);
        if (has_next_) events.Push(chat_next_, EventKind::kArrival);
        break;
      }
      has_next_ = source_->Next(&next_);
      if (has_next_) events.Push(next_.arrival, EventKind::kArrival);
      break;
    case Mode::kClosed:
      for (uint32_t c = 0; c < clients_; ++c) {
        const double start = config_.closed_loop.ramp_s * c / clients_;
        events.Push(FromSeconds(start), EventKind::kArrival, c);
      }
      break;
    case Mode::kStaged:
      StartStage(0, 0, events);
      break;
    case Mode::kSessions:
      if (clients_ == 0) PushNextSessionStart(events);
      for (uint32_t c = 0; c < clients_; ++c) {
        const double start = config_.closed_loop.ramp_s * c / clients_;
        events.Push(FromSeconds(start), EventKind::kArrival, c);
      }
      break;
  }
}

void ArrivalDriver::PushNextSessionStart(EventQueue& events) {
  if (trace_plan_ != nullptr) {
    const Time t = trace_plan_->Start(next_session_);
    if (t < end_) events.Push(t, EventKind::kArrival, kNewSession);
    return;
  }
  session_unit_time_ += session_starts_->NextGap();
  const double t = session_unit_time_ / session_rate_;
  if (t < ToSeconds(end_)) events.Push(FromSeconds(t), EventKind::kArrival, kNewSession);
}

// A client's j-th session is session (client << 32 | j): the same session
// for a client whatever the timing (models/session_plan.h).
bool ArrivalDriver::ArriveInSession(const Event& event, models::Request* out, ArrivalTag* tag,
                                    EventQueue& events) {
  uint32_t slot = event.target;
  if (clients_ > 0 && BudgetSpent()) return false;
  if (slot == kNewSession) {
    if (free_sessions_.empty()) {
      slot = static_cast<uint32_t>(sessions_.size());
      sessions_.emplace_back();
    } else {
      slot = free_sessions_.back();
      free_sessions_.pop_back();
    }
    planner_->Draw(next_session_++, &sessions_[slot]);
    PushNextSessionStart(events);
  } else if (sessions_[slot].done()) {  // a client starts its next session
    const uint64_t id = (static_cast<uint64_t>(slot) << 32) | client_sessions_[slot]++;
    planner_->Draw(id, &sessions_[slot]);
  }
  planner_->Emit(&sessions_[slot], next_request_id_++, event.time, out);
  sessions_[slot].sent = event.time;
  tag->session_slot = slot;
  if (clients_ > 0) tag->client = slot;
  ++issued_;
  return true;
}

void ArrivalDriver::SessionDone(uint32_t slot, bool completed, Time now, EventQueue& events) {
  models::Session& s = sessions_[slot];
  if (!completed) s.next = static_cast<uint32_t>(s.steps.size());  // the user gives up
  if (clients_ > 0) {
    const models::ClosedLoopConfig& c = config_.closed_loop;
    if (BudgetSpent()) return;
    const Time next =
        s.done() ? now + FromSeconds(c.think_time_s.Sample(think_rng_[slot])) : s.NextSend(now);
    if (next < end_) events.Push(next, EventKind::kArrival, slot);
    return;
  }
  if (!s.done()) {
    const Time next = s.NextSend(now);
    if (next < end_) {
      events.Push(next, EventKind::kArrival, slot);
      return;
    }
  }
  free_sessions_.push_back(slot);
}

// inference_perf/loadgen/load_timer.py: n i.i.d. exponential gaps rescaled to
// sum to the stage's duration. The stage's own stream makes the times the
// same whatever happened in earlier stages.
void ArrivalDriver::StartStage(uint32_t stage, Time start, EventQueue& events) {
  stage_ = stage;
  const models::LoadStage& s = config_.stages[stage];
  const uint64_t n = s.requests > 0 ? s.requests : static_cast<uint64_t>(s.qps * s.duration_s);
  RandomStream rng(seed_, "workload.stage_arrivals", stage);
  std::vector<double> sums(n);
  double sum = 0;
  for (uint64_t i = 0; i < n; ++i) sums[i] = sum += rng.Exponential(1.0);
  stage_times_.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    stage_times_[i] = start + FromSeconds(s.duration_s * sums[i] / sum);
  }
  stage_next_ = 0;
  // Each stage restarts the workload's count (inference-perf's prompt counter)
  // and, with multi-turn chat, every conversation.
  source_ = MakeSource(StageQps(s), kNever, stage);
  if (n > 0) events.Push(stage_times_[0], EventKind::kArrival);
}

bool ArrivalDriver::Arrive(const Event& event, models::Request* out, ArrivalTag* tag,
                           EventQueue& events) {
  *tag = ArrivalTag{};
  if (chat_source_ != nullptr) return ArriveInChat(event, out, tag, events);
  switch (mode_) {
    case Mode::kOpen:
      if (!has_next_) return false;
      std::swap(*out, next_);  // swaps buffers: no allocation in steady state
      has_next_ = source_->Next(&next_);
      if (has_next_) events.Push(next_.arrival, EventKind::kArrival);
      return true;
    case Mode::kClosed:
      // Arrivals pushed before the budget ran out (think times overlap) send nothing.
      if (BudgetSpent() || !source_->Next(out)) return false;
      out->arrival = event.time;
      tag->client = event.target;
      ++issued_;
      return true;
    case Mode::kStaged:
      if (!source_->Next(out)) return false;
      out->arrival = event.time;
      tag->stage = stage_;
      if (++stage_next_ < stage_times_.size()) {
        events.Push(stage_times_[stage_next_], EventKind::kArrival);
      }
      return true;
    case Mode::kSessions:
      return ArriveInSession(event, out, tag, events);
  }
  return false;
}

// A round is due at the workload's time (open loop, a stage's time) or when
// its client is ready (closed loop); it goes out then unless its user has a
// round in flight, and then when that round is done (OnDone).
bool ArrivalDriver::ArriveInChat(const Event& event, models::Request* out, ArrivalTag* tag,
                                 EventQueue& events) {
  models::SharedPrefixChat& chat = *chat_source_->chat();
  uint32_t user;
  if ((event.target & kReleaseBit) != 0) {
    user = event.target & ~kReleaseBit;
    --chat_released_;
  } else {
    uint32_t client = ArrivalTag::kNoClient;
    if (mode_ == Mode::kOpen) {
      if (!has_next_) return false;
      has_next_ = chat_source_->NextArrival(&chat_next_);
      if (has_next_) events.Push(chat_next_, EventKind::kArrival);
    } else if (mode_ == Mode::kClosed) {
      if (BudgetSpent()) return false;
      client = event.target;
      ++issued_;
    } else if (++stage_next_ < stage_times_.size()) {
      events.Push(stage_times_[stage_next_], EventKind::kArrival);
    }
    user = chat.UserOf(chat_due_++);
    if (!chat.Claim(user, client)) return false;  // it waits for the user's round in flight
  }
  chat.Emit(user, next_request_id_++, event.time, out);
  tag->client = chat.client(user);
  tag->stage = stage_;
  tag->session_slot = user;
  return true;
}

void ArrivalDriver::OnDone(const ArrivalTag& tag, bool completed, Time now, size_t in_flight,
                           EventQueue& events) {
  if (chat_source_ != nullptr && chat_source_->chat()->Release(tag.session_slot, completed)) {
    // The user's next round has waited: it goes out now, even past the end,
    // as inference-perf sends every request of a stage it has scheduled.
    events.Push(now, EventKind::kArrival, kReleaseBit | tag.session_slot);
    ++chat_released_;
  }
  if (mode_ == Mode::kSessions) {
    SessionDone(tag.session_slot, completed, now, events);
  } else if (mode_ == Mode::kClosed && tag.client != ArrivalTag::kNoClient) {
    const models::ClosedLoopConfig& c = config_.closed_loop;
    if (BudgetSpent()) return;
    const Time next = now + FromSeconds(c.think_time_s.Sample(think_rng_[tag.client]));
    if (next < end_) events.Push(next, EventKind::kArrival, tag.client);
  } else if (mode_ == Mode::kStaged && stage_next_ == stage_times_.size() && in_flight == 0 &&
             (chat_source_ == nullptr || chat_source_->chat()->waiting() + chat_released_ == 0) &&
             stage_ + 1 < config_.stages.size()) {
    StartStage(stage_ + 1, now + FromSeconds(config_.stage_gap_s), events);
  }
}

}  // namespace kvroute::sim
