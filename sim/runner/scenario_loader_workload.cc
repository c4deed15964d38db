// The `workload` section: keys and their rate skew, tenants, whales, prompts
// (system prompt, RAG chunks, new tokens), outputs and sessions. Arrivals,
// load schedule and drift are in scenario_loader_arrivals.cc; a trace, which
// replaces all of it, in scenario_loader_trace.cc.
#include <cmath>
#include <string>

#include "models/key_rates.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kMaxKeys = 1e8;

// The smallest count a distribution can draw, after rounding: a lognormal's
// lower tail reaches its clamp.
double LowestDraw(const models::LengthDistribution& d) {
  using Kind = models::LengthDistribution::Kind;
  return std::round(d.kind == Kind::kFixed ? d.value : std::floor(d.min));
}

// The largest count a distribution can draw; unbounded where no max clamps it.
double HighestDraw(const models::LengthDistribution& d) {
  using Kind = models::LengthDistribution::Kind;
  if (d.kind == Kind::kFixed) return std::round(d.value);
  return d.max > 0 ? std::round(d.max) : HUGE_VAL;
}

// Parallel tool calls per step: OpenAI and Anthropic agents issue a handful.
constexpr uint32_t kMaxParallelCalls = 256;

void ParseRateSkew(YamlMap& w, models::WorkloadConfig* c) {
  if (!w.Take("rate_skew").IsDefined()) return;
  YamlMap m = w.Map("rate_skew", &RateSkewKeys());
  models::KeyRateConfig& r = c->rates;
  r.kind = m.Choice("kind", RateSkewKinds());
  switch (r.kind) {
    case models::KeyRateConfig::Kind::kZipf:
      r.zipf_s = m.Number("s");
      break;
    case models::KeyRateConfig::Kind::kLognormal:
      r.sigma = m.Number("sigma");
      break;
    case models::KeyRateConfig::Kind::kGini:
      m.Required("target");
      r.gini = m.Number("target");
      r.max_share = m.Number("max_share");
      break;
  }
  m.Finish();
}

void ParseWhales(YamlMap& w, models::WorkloadConfig* c) {
  YAML::Node whales = w.Take("whales");
  if (!whales.IsDefined()) return;
  if (!whales.IsSequence()) w.Fail("whales", "expected a list of shares");
  double total = 0;
  for (size_t i = 0; i < whales.size(); ++i) {
    double share = 0;
    if (!whales[i].IsScalar() || !YAML::convert<double>::decode(whales[i], share) ||
        !(share > 0 && share < 1)) {
      w.FailAt(whales[i], w.Child("whales") + "[" + std::to_string(i) + "]",
               "expected a share in (0, 1)");
    }
    total += share;
    c->rates.whales.push_back(share);
  }
  if (!(total < 1) || c->rates.whales.size() >= c->keys) {
    w.Fail("whales", "whale shares must sum below 1, with fewer whales than keys");
  }
}

void ParsePrompt(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  if (!w.Take("prompt").IsDefined()) return;
  YamlMap m = w.Map("prompt", &PromptKeys());
  c->system_tokens = static_cast<uint32_t>(m.Integer("system_tokens"));
  if (YAML::Node n = m.Take("new_tokens"); n.IsDefined()) {
    c->new_tokens = ParseLength(m, n, m.Child("new_tokens"), ctx);
  }
  c->no_prefix_share = m.Number("no_prefix_share");
  if (m.Take("rag").IsDefined()) {
    YamlMap r = m.Map("rag", &RagKeys());
    c->rag.documents = static_cast<uint32_t>(r.Integer("documents"));
    c->rag.popularity_s = r.Number("popularity_s");
    if (YAML::Node n = r.Take("chunks"); n.IsDefined()) {
      c->rag.chunks = ParseLength(r, n, r.Child("chunks"), ctx);
    }
    c->rag.chunk_tokens = static_cast<uint32_t>(r.Integer("chunk_tokens"));
    r.Finish();
  }
  if (c->system_tokens == 0 && LowestDraw(c->new_tokens) < 1) {
    m.Fail(m.node()["new_tokens"].IsDefined() ? "new_tokens" : "system_tokens",
           "a prompt could have no token: system_tokens is 0 and new_tokens can draw 0 (every "
           "prompt needs at least one token)");
  }
  m.Finish();
}

void ParseSessions(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  if (!w.Take("sessions").IsDefined()) return;
  YamlMap m = w.Map("sessions", &SessionKeys());
  YAML::Node turns = m.Required("turns");
  c->sessions.turns = ParseLength(m, turns, m.Child("turns"), ctx);
  // Sessions start at the load divided by the mean draw, and every session has
  // at least one turn: draws of 0 would silently raise the offered load.
  if (LowestDraw(c->sessions.turns) < 1) {
    m.FailAt(turns, m.Child("turns"), "every draw must be at least one turn (set min: 1)");
  }
  if (YAML::Node n = m.Take("think_time_s"); n.IsDefined()) {
    c->sessions.think_time_s = ParseLength(m, n, m.Child("think_time_s"), ctx);
  }
  c->sessions.closed_loop = m.Choice("pacing", SessionPacings());
  if (m.Take("agent").IsDefined()) {
    YamlMap a = m.Map("agent", &AgentKeys());
    models::AgentConfig& agent = c->sessions.agent;
    agent.tool_calls = ParseLength(a, a.Required("tool_calls"), a.Child("tool_calls"), ctx);
    if (YAML::Node n = a.Take("parallel_calls"); n.IsDefined()) {
      agent.parallel_calls = ParseLength(a, n, a.Child("parallel_calls"), ctx);
      // A step that calls no tool is no tool step; a bound keeps a typo from
      // drawing millions of calls per step.
      if (LowestDraw(agent.parallel_calls) < 1) {
        a.FailAt(n, a.Child("parallel_calls"),
                 "every draw must be at least one call (set min: 1; tool_calls counts the steps)");
      }
      if (HighestDraw(agent.parallel_calls) > kMaxParallelCalls) {
        a.FailAt(n, a.Child("parallel_calls"),
                 "draws must stay at most " + std::to_string(kMaxParallelCalls) +
                     " calls per step (set max)");
      }
    }
    if (YAML::Node n = a.Take("tool_output_tokens"); n.IsDefined()) {
      agent.tool_output_tokens = ParseLength(a, n, a.Child("tool_output_tokens"), ctx);
    }
    if (YAML::Node n = a.Take("tool_latency_s"); n.IsDefined()) {
      agent.tool_latency_s = ParseLength(a, n, a.Child("tool_latency_s"), ctx);
    }
    a.Finish();
    if (!c->sessions.closed_loop) {
      m.Fail("agent",
             "a tool call waits for the model's response: agent loops need pacing: closed_loop");
    }
  }
  m.Finish();
}

}  // namespace

const ChoiceTable<models::KeyRateConfig::Kind>& RateSkewKinds() {
  using Kind = models::KeyRateConfig::Kind;
  static const ChoiceTable<Kind> table(
      "rate distribution",
      {{"zipf", Kind::kZipf}, {"lognormal", Kind::kLognormal}, {"gini", Kind::kGini}});
  return table;
}

const YamlKeyTable& WorkloadKeys() {
  static const models::WorkloadConfig d;
  static const YamlKeyTable table{
      "workload",
      {IntegerKey("keys", d.keys, 1, kMaxKeys, "routing keys; key 0 is the hottest"),
       IntegerKey("tenants", d.tenants, 0, kMaxKeys,
                  "key k belongs to tenant k mod tenants; 0: each key its own tenant"),
       NestedKey("rate_skew", YamlType::kMap, "{kind: zipf, s: 1}",
                 "how traffic is spread over keys"),
       IntegerKey("active_keys", d.rates.active_keys, 0, kMaxKeys,
                  "only the top K keys carry traffic (seed 003 §5.2); 0: all")
           .Default("0 (all)"),
       NestedKey("whales", YamlType::kList, "none",
                 "shares: key i takes share whales[i] of all traffic (seed 003 §9.3)"),
       NestedKey("prompt", YamlType::kMap, "see workload.prompt", "what each prompt is made of"),
       NestedKey("output_tokens", YamlType::kLength, "128", "output length, at least 1"),
       NestedKey("sessions", YamlType::kMap, "one turn",
                 "multi-turn sessions and agent loops, open or closed loop"),
       NestedKey("arrivals", YamlType::kMap, "{kind: poisson}", "the unit-rate arrival process"),
       NestedKey("load_schedule", YamlType::kList, "constant",
                 "list of {until_s, factor}: the load is factor x QPS until until_s"),
       NestedKey("drift", YamlType::kMap, "none", "random walk of the keys' log-rates"),
       NestedKey("clients", YamlType::kMap, "none",
                 "per-client arrivals from a clients file (ServeGen) instead of keys, tenants, "
                 "whales, arrivals, load_schedule and drift"),
       NestedKey("trace", YamlType::kMap, "none",
                 "replay a trace instead; no other workload key may be given"),
       NestedKey("shared_prefix", YamlType::kMap, "none",
                 "inference-perf's shared-prefix workload instead; only arrivals may go with it")}};
  return table;
}

const YamlKeyTable& RateSkewKeys() {
  static const models::KeyRateConfig d;
  static const YamlKeyTable table{
      "workload.rate_skew",
      {ChoiceKey("kind", RateSkewKinds().names(), RateSkewKinds().NameOf(d.kind),
                 "the family of per-key shares"),
       NumberKey("s", d.zipf_s, 0, 10, "key k gets weight 1/(k+1)^s").When("kind: zipf"),
       NumberKey("sigma", d.sigma, 0, 10, "log-rates at normal quantiles x sigma")
           .When("kind: lognormal"),
       NumberKey("target", d.gini, 0, 0.999, "Gini of the shares after the cap")
           .Required()
           .When("kind: gini"),
       NumberKey("max_share", d.max_share, 1e-9, 1, "no key above this share; 1: no cap")
           .When("kind: gini")}};
  return table;
}

const YamlKeyTable& PromptKeys() {
  static const models::WorkloadConfig d;
  static const YamlKeyTable table{
      "workload.prompt",
      {IntegerKey("system_tokens", d.system_tokens, 0, 1e7, "each key's shared system prompt"),
       NestedKey("new_tokens", YamlType::kLength, "256", "new user tokens per request or turn"),
       NumberKey("no_prefix_share", d.no_prefix_share, 0, 1,
                 "share of sessions with nothing reusable (seed 003 §5.4)"),
       NestedKey("rag", YamlType::kMap, "none", "shared document chunks after the system prompt")}};
  return table;
}

const YamlKeyTable& RagKeys() {
  static const models::RagConfig d;
  static const YamlKeyTable table{
      "workload.prompt.rag",
      {IntegerKey("documents", d.documents, 1, kMaxKeys, "documents drawn from").Required(),
       NumberKey("popularity_s", d.popularity_s, 0, 10, "Zipf exponent of document popularity"),
       NestedKey("chunks", YamlType::kLength, "1", "chunks per prompt"),
       IntegerKey("chunk_tokens", d.chunk_tokens, 1, 1e6, "tokens per chunk")}};
  return table;
}

const ChoiceTable<bool>& SessionPacings() {
  static const ChoiceTable<bool> table("session pacing",
                                       {{"open_loop", false}, {"closed_loop", true}});
  return table;
}

const YamlKeyTable& SessionKeys() {
  static const YamlKeyTable table{
      "workload.sessions",
      {NestedKey("turns", YamlType::kLength, "", "turns per session, every draw >= 1").Required(),
       NestedKey("think_time_s", YamlType::kLength, "0",
                 "open loop: from a turn's arrival to the next's; closed loop: from a turn's "
                 "response to the next turn, s"),
       ChoiceKey("pacing", SessionPacings().names(), "open_loop",
                 "open_loop: turns at fixed times; closed_loop: each turn waits for the previous "
                 "response (docs/WORKLOADS.md)"),
       NestedKey(
           "agent", YamlType::kMap, "none",
           "tool steps after each user turn, each of parallel tool calls (pacing: closed_loop)")}};
  return table;
}

const YamlKeyTable& AgentKeys() {
  static const models::AgentConfig d;
  static const YamlKeyTable table{
      "workload.sessions.agent",
      {NestedKey("tool_calls", YamlType::kLength, "",
                 "tool steps after each user turn: model responses that call tools, a request "
                 "each")
           .Required(),
       NestedKey("parallel_calls", YamlType::kLength, d.parallel_calls.Describe(),
                 "tool calls per step, run concurrently: the next request waits for the slowest "
                 "and appends every output; draws in [1, 256]"),
       NestedKey("tool_output_tokens", YamlType::kLength, d.tool_output_tokens.Describe(),
                 "tokens a tool call's result appends to the prompt, per call"),
       NestedKey("tool_latency_s", YamlType::kLength, d.tool_latency_s.Describe(),
                 "from the model's response to the tool call's result, per call, s")}};
  return table;
}

double ParseWorkload(YamlMap& top, const LoadContext& ctx, Scenario* s) {
  top.Required("workload");
  YamlMap w = top.Map("workload", &WorkloadKeys());
  models::WorkloadConfig& c = s->workload;
  if (w.Take("trace").IsDefined()) {
    const double native_qps = ParseTrace(w, ctx, &c);
    for (const auto& entry : w.node()) {
      if (entry.first.Scalar() != "trace") {
        w.FailAt(entry.first, w.Child(entry.first.Scalar()),
                 "a trace replaces the synthetic workload; remove this key or the trace");
      }
    }
    return native_qps;
  }
  if (w.Take("shared_prefix").IsDefined()) {
    ParseSharedPrefix(w, ctx, &c);
    ParseArrivals(w, ctx, &c);
    for (const auto& entry : w.node()) {
      const std::string key = entry.first.Scalar();
      if (key != "shared_prefix" && key != "arrivals") {
        w.FailAt(entry.first, w.Child(key),
                 "shared_prefix replaces the synthetic workload (only arrivals may go with it)");
      }
    }
    if (c.arrivals.kind != models::ArrivalConfig::Kind::kPoisson && !c.closed_loop.enabled) {
      w.Fail("arrivals", "shared_prefix arrivals are Poisson (inference-perf's) or closed loop");
    }
    return 0;
  }
  const bool clients = w.Take("clients").IsDefined();
  if (clients) ParseClients(w, ctx, s->duration_s, &c);
  if (!clients) c.keys = static_cast<uint32_t>(w.Integer("keys"));
  c.tenants = static_cast<uint32_t>(w.Integer("tenants"));
  ParseRateSkew(w, &c);
  c.rates.active_keys = static_cast<uint32_t>(w.Integer("active_keys"));
  const uint32_t spread_keys = clients ? c.clients.keys_per_client : c.keys;
  if (c.rates.active_keys > spread_keys) {
    w.Fail("active_keys", clients ? "must be <= clients.keys_per_client" : "must be <= keys");
  }
  ParseWhales(w, &c);
  ParsePrompt(w, ctx, &c);
  if (YAML::Node n = w.Take("output_tokens"); n.IsDefined()) {
    c.output_tokens = ParseLength(w, n, w.Child("output_tokens"), ctx);
  }
  if (LowestDraw(c.output_tokens) < 1) {
    w.Fail("output_tokens", "every output needs at least one token; this distribution can draw 0");
  }
  ParseSessions(w, ctx, &c);
  ParseArrivals(w, ctx, &c);
  ParseLoadSchedule(w, &c);
  ParseDrift(w, &c);
  // Closed-loop clients running multi-turn sessions run them closed loop.
  const bool multi_turn = c.sessions.turns.MeanDraw() > 1;
  if (c.closed_loop.enabled && multi_turn) {
    if (w.node()["sessions"]["pacing"].IsDefined() && !c.sessions.closed_loop) {
      w.Fail("sessions", "closed-loop clients wait for each response: pacing must be closed_loop");
    }
    c.sessions.closed_loop = true;
  }
  if (clients && c.sessions.closed_loop) {
    w.Fail("sessions",
           "per-client arrivals are open loop: workload.clients cannot be combined "
           "with closed-loop sessions (pacing: closed_loop)");
  }
  if (c.closed_loop.enabled || c.sessions.closed_loop) {
    // The responses set the pace: a load schedule or drift in the workload's
    // own clock would not follow simulated time.
    const char* clash = !c.load_schedule.empty() ? "load_schedule"
                        : c.drift.sigma > 0      ? "drift"
                                                 : nullptr;
    if (clash) {
      w.Fail(clash, c.closed_loop.enabled
                        ? "cannot be combined with closed-loop arrivals (workload.arrivals)"
                        : "cannot be combined with closed-loop sessions (workload.sessions)");
    }
  }
  w.Finish();
  try {
    models::KeyShares(spread_keys, c.rates);  // an unreachable Gini fails here, with its place
  } catch (const std::invalid_argument& e) {
    w.Fail("rate_skew", e.what());
  }
  return 0;
}

}  // namespace kvroute::sim::scenario
