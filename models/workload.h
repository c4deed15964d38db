// The synthetic workload (DESIGN.md, "Requests"; seed 003 §5.1–§5.6): routing
// keys with skewed rates that may drift, grouped into tenants; prompts built
// from a key's system prompt, shared document chunks, the session's earlier
// turns and new tokens; arrivals from a unit-rate process.
//
// The request sequence depends only on (config, seed). Session starts arrive
// at the unit-rate process's times scaled by 1/rate and warped by the load
// schedule, or at the clients' own times (workload.clients, client_arrivals.h);
// everything a session contains (key, documents, turns, lengths, think times)
// is drawn when it starts, in start order, from its own streams. Later turns
// are open-loop: turn t+1 arrives think time after turn t arrives, whatever
// the simulated cluster did with turn t.
//
// Multi-turn sessions start in steady state: sessions also start during a
// lead-in before time 0 as long as the longest session (the most turns times
// the longest think time), and only their turns from time 0 on are emitted.
// Without it the request rate would ramp up from QPS / mean turns over the
// first session length, and the run would fall short of the load.
#ifndef KVROUTE_MODELS_WORKLOAD_H_
#define KVROUTE_MODELS_WORKLOAD_H_

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "models/alias_table.h"
#include "models/arrival_process.h"
#include "models/client_arrivals.h"
#include "models/inference_perf_length.h"
#include "models/key_rates.h"
#include "models/length_distribution.h"
#include "models/prompt_blocks.h"
#include "models/request_source.h"
#include "models/trace_reader.h"
#include "sim/core/random_stream.h"
#include "sim/core/time.h"

namespace kvroute::models {

// Agentic loops: after each user turn the model takes `tool_calls` tool
// steps one after another (a step is one model response that calls tools);
// in each step it issues `parallel_calls` calls that run concurrently (the
// parallel tool use of the OpenAI and Anthropic APIs). Each call draws its
// own output (`tool_output_tokens`) and latency (`tool_latency_s`); the next
// request goes out when the slowest call returns (the maximum latency), its
// prompt grown by the model's response and every call's output in call
// order. A request per step, so requests per session do not depend on
// parallel_calls. Closed loop only.
struct AgentConfig {
  LengthDistribution tool_calls = LengthDistribution::Fixed(0);      // tool steps per user turn
  LengthDistribution parallel_calls = LengthDistribution::Fixed(1);  // calls per step, >= 1
  LengthDistribution tool_output_tokens = LengthDistribution::Fixed(256);  // per call
  LengthDistribution tool_latency_s = LengthDistribution::Fixed(0);        // per call
};

// Multi-turn sessions: a turn's prompt is the previous turn's prompt, its
// output and new user tokens (workload new_tokens). Open loop, turn t+1
// arrives think time after turn t arrived; closed loop (session_plan.h), think
// time after turn t's response, so a slow cluster slows its users.
struct SessionConfig {
  LengthDistribution turns = LengthDistribution::Fixed(1);         // turns per session, >= 1
  LengthDistribution think_time_s = LengthDistribution::Fixed(0);  // between turns
  bool closed_loop = false;
  AgentConfig agent;  // tool calls need closed_loop
};

// RAG-like shared context: after the system prompt, `chunks` document chunks
// drawn from `documents` documents with Zipf(popularity_s) popularity.
struct RagConfig {
  uint32_t documents = 0;  // 0: no documents
  double popularity_s = 1.0;
  LengthDistribution chunks = LengthDistribution::Fixed(1);
  uint32_t chunk_tokens = 512;

  // Each document's probability of being drawn; {1} without documents.
  std::vector<double> DocumentWeights() const;
};

// Every control interval each key's log-rate takes a N(0, sigma^2) step
// (seed 003 §5.6: sigma 0.3 over six intervals).
struct DriftConfig {
  double sigma = 0;  // 0: no drift
  double interval_s = 60;
};

// Fixed-concurrency clients, as benchmark tools run them: `clients` clients
// (0: as many as the point's load, so a sweep's load axis counts clients)
// each send a first request, evenly spread over [0, ramp_s), and their next
// one think time after the previous one completes (or fails). Request content still comes from the
// workload, in its order; only the timing is the clients'.
struct ClosedLoopConfig {
  bool enabled = false;
  uint32_t clients = 0;
  LengthDistribution think_time_s = LengthDistribution::Fixed(0);
  uint64_t max_requests = 0;  // all clients together; 0: until duration_s
  double ramp_s = 0;          // 0: every client starts at time 0
};

// One stage of a staged load, as inference-perf runs them
// (inference_perf/loadgen/load_timer.py): exactly `requests` requests
// (rate × duration when 0) whose gaps are i.i.d. exponential rescaled to sum
// to `duration_s` (a Poisson process conditioned on its count). The next
// stage starts once every request of this one has completed, plus the gap.
struct LoadStage {
  double qps = 0;
  double duration_s = 0;
  uint64_t requests = 0;
};

// inference-perf's shared-prefix data generator
// (inference_perf/datagen/synthetic/shared_prefix_datagen.py): `groups` system prompts
// of `system_tokens`, each followed by `prompts_per_group` questions of
// `question_tokens`; the prompts are shuffled once and request k uses prompt
// k mod their number, the count restarting at each load stage. Off when groups
// is 0. The group is the routing key.
struct SharedPrefixConfig {
  uint32_t groups = 0;
  uint32_t prompts_per_group = 10;
  // Drawn once per group (system) and once per prompt (question, output).
  InferencePerfLength system_tokens = InferencePerfLength::Fixed(100);
  InferencePerfLength question_tokens = InferencePerfLength::Fixed(447);
  InferencePerfLength output_tokens = InferencePerfLength::Fixed(248);
  // enable_multi_turn_chat: each prompt is a user whose rounds re-send the
  // conversation so far (models/shared_prefix_chat.h).
  bool multi_turn_chat = false;
};

struct WorkloadConfig {
  uint32_t keys = 1000;  // routing keys
  KeyRateConfig rates;   // how traffic is spread over keys
  uint32_t tenants = 0;  // key k belongs to tenant k % tenants; 0: each key is its own tenant
  uint32_t system_tokens = 1024;  // shared system prompt of each key
  LengthDistribution new_tokens = LengthDistribution::Fixed(256);  // new user tokens per turn
  LengthDistribution output_tokens = LengthDistribution::Fixed(128);
  RagConfig rag;
  // Share of sessions whose every token is their own: nothing reusable across
  // sessions (the low-recoverable 32B workloads of seed 003 §5.4).
  double no_prefix_share = 0;
  SessionConfig sessions;
  ArrivalConfig arrivals;
  std::vector<LoadStep> load_schedule;  // empty: constant load
  DriftConfig drift;
  TraceConfig trace;                 // a trace file replaces everything above when set
  SharedPrefixConfig shared_prefix;  // replaces the keys, prompts and lengths above when set
  ClosedLoopConfig closed_loop;      // replaces the arrival times when set
  std::vector<LoadStage> stages;     // replace the sweep's constant load when set
  double stage_gap_s = 2;            // after a stage has drained (inference-perf: about 2 s)
  // Per-client arrivals (client_arrivals.h): replace the keys, tenants, whales
  // and arrival process above when set; rates spreads a client over its keys.
  ClientsConfig clients;
  int block_size_tokens = 16;
};

// The tenant of `key` under WorkloadConfig::tenants.
inline uint32_t TenantOfKey(uint32_t key, uint32_t tenants) {
  return tenants > 0 ? key % tenants : key;
}

// Each tenant's share: the sum of its keys' shares, indexed by tenant id (as
// many as there are tenants with keys).
std::vector<double> TenantShares(const std::vector<double>& key_shares, uint32_t tenants);

class WorkloadGenerator : public RequestSource {
 public:
  // Requests arrive at `qps` on average (before the load schedule) until `end`
  // (exclusive). Throws std::invalid_argument for an unreachable rate target.
  WorkloadGenerator(const WorkloadConfig& config, uint64_t seed, double qps, sim::Time end);

  bool Next(Request* out) override;
  const std::vector<double>& key_shares() const override { return shares_; }
  // Drifted shares (same path as the requests' keys) times the load
  // schedule's factor at t; session turns lag the schedule by think times.
  void KeyLoadAt(sim::Time t, std::vector<double>* out) const override;
  std::span<const PromptSegment> segments() const override {
    if (sessions_.empty()) return {};
    return std::span(sessions_[emitted_slot_].history).first(emitted_segments_);
  }
  std::vector<double> tenant_shares() const override;

 private:
  struct Session {
    uint64_t id = 0;
    uint32_t key = 0;
    uint32_t turn = 0;  // the next turn to emit
    std::vector<PromptSegment> history;
    std::vector<uint32_t> user_tokens, output_tokens;  // per turn
    std::vector<double> think_s;                       // before each later turn
  };
  struct Pending {
    sim::Time arrival;
    uint64_t order;  // ties broken by the order turns were scheduled
    uint32_t slot;
    bool operator>(const Pending& o) const {
      return arrival != o.arrival ? arrival > o.arrival : order > o.order;
    }
  };

  static PromptSegment OutputSegment(const Session& s, uint32_t turn);
  void AdvanceFresh();
  void StartSession(sim::Time arrival);
  // Issues the slot's next turn; fills `out` unless it is null (a lead-in turn).
  void Emit(uint32_t slot, sim::Time arrival, Request* out);
  uint32_t DrawKey(sim::Time arrival);
  // Takes `log_weights`, at drift interval *interval, to the interval of t.
  void StepDrift(uint64_t* interval, sim::Time t, std::vector<double>* log_weights) const;

  WorkloadConfig config_;
  uint64_t seed_;
  double session_rate_;  // session starts per second before the schedule
  double lead_in_s_;     // sessions start this long before time 0
  sim::Time end_;
  std::vector<double> shares_;
  std::vector<double> log_weights_;  // drifted log-rates, when drifting
  AliasTable key_table_;
  uint64_t drift_interval_ = 0;
  // KeyLoadAt's own walk along the same drift path, apart from the draws'.
  mutable std::vector<double> true_log_weights_;
  mutable uint64_t true_interval_ = 0;
  mutable sim::Time true_rates_at_ = 0;
  AliasTable document_table_;
  ArrivalProcess arrivals_;
  std::unique_ptr<ClientsProcess> clients_;  // when config.clients is set
  uint32_t fresh_key_ = 0;                   // the clients' key for fresh_arrival_
  LoadSchedule schedule_;
  sim::RandomStream key_rng_, length_rng_, session_rng_, rag_rng_, no_prefix_rng_;
  double unit_time_ = 0;
  sim::Time fresh_arrival_ = sim::kNever;  // the next session start, or kNever
  uint64_t next_id_ = 0, next_session_ = 0, next_order_ = 0;
  std::vector<Session> sessions_;
  std::vector<uint32_t> free_slots_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  uint32_t emitted_slot_ = 0, emitted_segments_ = 0;  // the last request's prompt
  std::shared_ptr<SequenceHasher> hasher_;            // shared with the requests it has yet to hash
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_WORKLOAD_H_
