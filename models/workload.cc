#include "models/workload.h"

#include <algorithm>
#include <cmath>

#include "models/prompt_salts.h"
#include "sim/core/hashing.h"
#include "sim/core/slot_pool.h"

namespace kvroute::models {

std::vector<double> RagConfig::DocumentWeights() const {
  return documents > 0 ? ZipfShares(documents, popularity_s) : std::vector<double>{1};
}

namespace {

// Sessions start at the load divided by the mean number of turns, so that all
// turns together arrive at the configured load.
double SessionRate(const WorkloadConfig& c, double qps) {
  return qps / std::max(1.0, c.sessions.turns.MeanDraw());
}

// The longest a session can last from its first turn to its last: a bound
// on the lead-in that puts the sessions in steady state at time 0. Unclamped
// lognormal tails are cut at the 1 - 1e-12 quantile.
double LongestSession(const SessionConfig& sessions) {
  constexpr double kTop = 1 - 1e-12;
  double turns = std::max(1.0, std::round(sessions.turns.Quantile(kTop)));
  return (turns - 1) * std::max(0.0, sessions.think_time_s.Quantile(kTop));
}

}  // namespace

std::vector<double> TenantShares(const std::vector<double>& key_shares, uint32_t tenants) {
  const size_t keys = key_shares.size();
  std::vector<double> shares(tenants > 0 ? std::min<size_t>(tenants, keys) : keys, 0.0);
  for (uint32_t k = 0; k < keys; ++k) shares[TenantOfKey(k, tenants)] += key_shares[k];
  return shares;
}

WorkloadGenerator::WorkloadGenerator(const WorkloadConfig& config, uint64_t seed, double qps,
                                     sim::Time end)
    : config_(config),
      seed_(seed),
      session_rate_(SessionRate(config, qps)),
      lead_in_s_(LongestSession(config.sessions)),
      end_(end),
      shares_(config.clients.enabled() ? std::vector<double>{1.0}
                                       : KeyShares(config.keys, config.rates)),
      key_table_(shares_),
      document_table_(config.rag.DocumentWeights()),
      arrivals_(config.arrivals, sim::RandomStream(seed, "workload.arrivals")),
      schedule_(config.load_schedule),
      key_rng_(seed, "workload.keys"),
      length_rng_(seed, "workload.lengths"),
      session_rng_(seed, "workload.sessions"),
      rag_rng_(seed, "workload.rag"),
      no_prefix_rng_(seed, "workload.no_prefix"),
      hasher_(std::make_shared<SequenceHasher>(static_cast<uint32_t>(config.block_size_tokens))) {
  if (config_.clients.enabled()) {
    // Session starts at the clients' request rates over the mean turns.
    clients_ = std::make_unique<ClientsProcess>(config_.clients, config_.rates, seed, qps,
                                                sim::ToSeconds(end), SessionRate(config, 1.0),
                                                -lead_in_s_);
    shares_ = clients_->KeyShares();
  }
  if (config_.drift.sigma > 0) {
    for (double s : shares_) log_weights_.push_back(s > 0 ? std::log(s) : -INFINITY);
  }
  AdvanceFresh();
}

std::vector<double> WorkloadGenerator::tenant_shares() const {
  if (!clients_) return TenantShares(shares_, config_.tenants);
  std::vector<double> shares(shares_.size() / config_.clients.keys_per_client, 0.0);
  for (uint32_t k = 0; k < shares_.size(); ++k) shares[clients_->TenantOf(k)] += shares_[k];
  return shares;
}

void WorkloadGenerator::AdvanceFresh() {
  if (clients_) {
    double t = 0;
    fresh_arrival_ = clients_->Next(&t, &fresh_key_) ? sim::FromSeconds(t) : sim::kNever;
    if (fresh_arrival_ >= end_) fresh_arrival_ = sim::kNever;
    return;
  }
  unit_time_ += arrivals_.NextGap();
  // The lead-in runs at the load of the schedule's first step.
  double c = unit_time_ / session_rate_ - lead_in_s_;
  double first_factor = config_.load_schedule.empty() ? 1 : config_.load_schedule[0].factor;
  double t = c < 0 ? c / first_factor : schedule_.Warp(c);
  fresh_arrival_ = t < sim::ToSeconds(end_) ? sim::FromSeconds(t) : sim::kNever;
  if (fresh_arrival_ >= end_) fresh_arrival_ = sim::kNever;
}

// Drift (seed 003 §5.6): the step of interval i comes from stream index i, so
// the path of rates is the same whenever the intervals are crossed, and the
// same for the generator's draws and for KeyLoadAt.
void WorkloadGenerator::StepDrift(uint64_t* interval, sim::Time t,
                                  std::vector<double>* log_weights) const {
  // Lead-in sessions take the rates of the first interval.
  uint64_t to = static_cast<uint64_t>(std::max(0.0, sim::ToSeconds(t)) / config_.drift.interval_s);
  for (uint64_t i = *interval + 1; i <= to; ++i) {
    sim::RandomStream step(seed_, "workload.drift", i);
    for (double& w : *log_weights) w += config_.drift.sigma * step.Normal();
  }
  *interval = std::max(*interval, to);
}

namespace {

// Weights proportional to exp(log_weights), the largest 1.
std::vector<double> DriftWeights(const std::vector<double>& log_weights) {
  double top = *std::max_element(log_weights.begin(), log_weights.end());
  std::vector<double> weights(log_weights.size());
  for (size_t k = 0; k < weights.size(); ++k) weights[k] = std::exp(log_weights[k] - top);
  return weights;
}

// The load schedule's factor at t seconds (arrival_process.h, LoadStep).
double LoadFactorAt(const std::vector<LoadStep>& steps, double t) {
  for (const LoadStep& step : steps) {
    if (t < step.until_s) return step.factor;
  }
  return steps.empty() ? 1.0 : steps.back().factor;
}

}  // namespace

uint32_t WorkloadGenerator::DrawKey(sim::Time arrival) {
  if (config_.drift.sigma > 0) {
    uint64_t before = drift_interval_;
    StepDrift(&drift_interval_, arrival, &log_weights_);
    if (drift_interval_ != before) key_table_ = AliasTable(DriftWeights(log_weights_));
  }
  return key_table_.Draw(key_rng_);
}

void WorkloadGenerator::KeyLoadAt(sim::Time t, std::vector<double>* out) const {
  if (clients_) {
    clients_->KeyLoadAt(sim::ToSeconds(t), out);
    return;
  }
  if (config_.drift.sigma > 0) {
    if (t < true_rates_at_) {  // asked about an earlier time: walk again from the start
      true_log_weights_.clear();
      true_interval_ = 0;
    }
    if (true_log_weights_.empty()) {
      for (double s : shares_) true_log_weights_.push_back(s > 0 ? std::log(s) : -INFINITY);
    }
    true_rates_at_ = t;
    StepDrift(&true_interval_, t, &true_log_weights_);
    *out = DriftWeights(true_log_weights_);
    double sum = 0;
    for (double w : *out) sum += w;
    for (double& w : *out) w /= sum;
  } else {
    *out = shares_;
  }
  double factor = LoadFactorAt(config_.load_schedule, sim::ToSeconds(t));
  for (double& r : *out) r *= factor;
}

void WorkloadGenerator::StartSession(sim::Time arrival) {
  const uint32_t slot = sim::TakeSlot(sessions_, free_slots_);
  Session& s = sessions_[slot];
  s.id = next_session_++;
  s.key = clients_ ? fresh_key_ : DrawKey(arrival);
  s.turn = 0;
  s.history.clear();
  bool private_prompt =
      config_.no_prefix_share > 0 && no_prefix_rng_.Uniform() < config_.no_prefix_share;
  uint64_t private_salt = sim::Combine(kPrivateSalt, s.id);
  if (config_.system_tokens > 0) {
    uint64_t salt = private_prompt ? private_salt : sim::Combine(kSystemSalt, s.key);
    s.history.push_back({salt, config_.system_tokens});
  }
  if (config_.rag.documents > 0) {
    uint32_t chunks = config_.rag.chunks.Draw(rag_rng_);
    for (uint32_t c = 0; c < chunks; ++c) {
      uint32_t doc = document_table_.Draw(rag_rng_);
      uint64_t salt = sim::Combine(private_prompt ? private_salt : kDocumentSalt, doc + 1);
      s.history.push_back({salt, config_.rag.chunk_tokens});
    }
  }
  uint32_t turns = std::max<uint32_t>(1, config_.sessions.turns.Draw(session_rng_));
  s.user_tokens.clear();
  s.output_tokens.clear();
  s.think_s.clear();
  for (uint32_t t = 0; t < turns; ++t) {
    s.user_tokens.push_back(config_.new_tokens.Draw(length_rng_));
    s.output_tokens.push_back(std::max<uint32_t>(1, config_.output_tokens.Draw(length_rng_)));
    s.think_s.push_back(t == 0 ? 0.0
                               : std::max(0.0, config_.sessions.think_time_s.Sample(session_rng_)));
  }
  pending_.push({arrival, next_order_++, slot});
}

bool WorkloadGenerator::Next(Request* out) {
  while (true) {
    // Start every session whose first turn precedes the earliest pending turn.
    while (fresh_arrival_ != sim::kNever &&
           (pending_.empty() || fresh_arrival_ < pending_.top().arrival)) {
      StartSession(fresh_arrival_);
      AdvanceFresh();
    }
    if (pending_.empty()) return false;
    Pending p = pending_.top();
    pending_.pop();
    if (p.arrival >= 0) {
      Emit(p.slot, p.arrival, out);
      return true;
    }
    Emit(p.slot, p.arrival, nullptr);
  }
}

// Turn t's generated tokens; the next turn's prompt repeats them.
PromptSegment WorkloadGenerator::OutputSegment(const Session& s, uint32_t t) {
  return {sim::Combine(sim::Combine(kOutputSalt, s.id), t), s.output_tokens[t]};
}

void WorkloadGenerator::Emit(uint32_t slot, sim::Time arrival, Request* out) {
  Session& s = sessions_[slot];
  uint32_t t = s.turn++;
  uint32_t user = s.user_tokens[t];
  if (user == 0 && TotalTokens(s.history) == 0) user = 1;  // a prompt has at least one token
  s.history.push_back({sim::Combine(sim::Combine(kUserSalt, s.id), t), user});

  if (out != nullptr) {
    out->id = next_id_++;
    out->arrival = arrival;
    out->key = s.key;
    out->tenant = clients_ ? clients_->TenantOf(s.key) : TenantOfKey(s.key, config_.tenants);
    out->session = s.id;
    out->prompt_tokens = TotalTokens(s.history);
    out->output_tokens = s.output_tokens[t];
    out->hashes.HashLater(hasher_, s.history, OutputSegment(s, t));
    emitted_slot_ = slot;
    emitted_segments_ = static_cast<uint32_t>(s.history.size());
  }

  // The next turn's prompt continues with this turn's output (open loop).
  if (s.turn < s.user_tokens.size()) {
    s.history.push_back(OutputSegment(s, t));
    double next = sim::ToSeconds(arrival) + s.think_s[s.turn];
    if (next < sim::ToSeconds(end_)) {
      pending_.push({sim::FromSeconds(next), next_order_++, slot});
      return;
    }
  }
  free_slots_.push_back(slot);
}

}  // namespace kvroute::models
