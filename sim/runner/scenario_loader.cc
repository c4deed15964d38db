#include "sim/runner/scenario_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include "models/key_rates.h"
#include "models/profile.h"
#include "models/trace_reader.h"
#include "sim/core/yaml_map.h"

namespace kvroute::sim {
namespace {

// Locates and reports errors for one scenario document. Keys set by --set
// have no line in the file; their errors name the override instead.
class Context {
 public:
  Context(std::string source) : source_(std::move(source)) {}

  void MarkOverridden(const std::string& path) { overridden_.insert(path); }

  [[noreturn]] void Fail(const YAML::Node& node, const std::string& path,
                         const std::string& message) const {
    std::ostringstream out;
    std::string overridden = OverrideFor(path);
    if (!overridden.empty()) {
      out << "--set " << overridden;
    } else {
      out << source_;
      if (node.IsDefined() && node.Mark().line >= 0) out << ":" << node.Mark().line + 1;
    }
    out << ": key '" << path << "': " << message;
    throw ScenarioError(out.str());
  }

  std::string Where(const YAML::Node& node, const std::string& path) const {
    std::string overridden = OverrideFor(path);
    if (!overridden.empty()) return "--set " + overridden;
    std::string where = source_;
    if (node.IsDefined() && node.Mark().line >= 0)
      where += ":" + std::to_string(node.Mark().line + 1);
    return where + ": key '" + path + "'";
  }

 private:
  std::string OverrideFor(const std::string& path) const {
    for (const std::string& o : overridden_) {
      if (path == o || path.rfind(o + ".", 0) == 0 || path.rfind(o + "[", 0) == 0) return o;
    }
    return "";
  }

  std::string source_;
  std::set<std::string> overridden_;
};

// Const lookup: operator[] on a non-const node would add the key to the map.
YAML::Node At(const YAML::Node& node, const std::string& key) { return node[key]; }

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A YAML map whose keys must all be consumed: Finish() rejects the rest.
class MapReader {
 public:
  MapReader(const Context& ctx, YAML::Node node, std::string path)
      : ctx_(ctx), node_(node), path_(std::move(path)) {
    if (!node_.IsMap()) ctx_.Fail(node_, path_.empty() ? "(top level)" : path_, "expected a map");
  }

  std::string Child(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  YAML::Node Take(const std::string& key) {
    allowed_.push_back(key);
    return At(node_, key);
  }

  // Rejects keys that were never taken, naming the valid ones.
  void Finish() const {
    for (const auto& entry : node_) {
      std::string key = entry.first.as<std::string>();
      if (std::find(allowed_.begin(), allowed_.end(), key) == allowed_.end()) {
        ctx_.Fail(entry.first, Child(key), "unknown key (valid here: " + Join(allowed_) + ")");
      }
    }
  }

  double Number(const std::string& key, double fallback, double min, double max = INFINITY) {
    YAML::Node n = Take(key);
    if (!n.IsDefined()) return fallback;
    double value = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || !std::isfinite(value)) {
      ctx_.Fail(n, Child(key), "expected a number");
    }
    if (value < min || value > max) {
      std::ostringstream msg;
      msg << "must be in [" << min << ", " << max << "], got " << value;
      ctx_.Fail(n, Child(key), msg.str());
    }
    return value;
  }

  uint64_t Integer(const std::string& key, uint64_t fallback, uint64_t min,
                   uint64_t max = UINT32_MAX) {
    YAML::Node n = Take(key);
    if (!n.IsDefined()) return fallback;
    double value = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || value != std::floor(value)) {
      ctx_.Fail(n, Child(key), "expected a whole number");
    }
    if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
      std::ostringstream msg;
      msg << "must be in [" << min << ", " << max << "], got " << value;
      ctx_.Fail(n, Child(key), msg.str());
    }
    return static_cast<uint64_t>(value);
  }

  std::string String(const std::string& key, const std::string& fallback) {
    YAML::Node n = Take(key);
    if (!n.IsDefined()) return fallback;
    if (!n.IsScalar()) ctx_.Fail(n, Child(key), "expected a string");
    return n.as<std::string>();
  }

  // REQUIRES the key to be present.
  YAML::Node Required(const std::string& key) {
    YAML::Node n = Take(key);
    if (!n.IsDefined()) ctx_.Fail(node_, Child(key), "required key is missing");
    return n;
  }

  const Context& ctx() const { return ctx_; }
  const YAML::Node& node() const { return node_; }

 private:
  const Context& ctx_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::string> allowed_;
};

models::LengthDistribution ParseLength(const Context& ctx, YAML::Node node,
                                       const std::string& path) {
  using Kind = models::LengthDistribution::Kind;
  if (node.IsScalar()) {
    double value = 0;
    if (!YAML::convert<double>::decode(node, value) || value < 0 || !std::isfinite(value)) {
      ctx.Fail(node, path, "expected a non-negative token count or a distribution map");
    }
    return models::LengthDistribution::Fixed(value);
  }
  MapReader map(ctx, node, path);
  std::string kind = map.String("kind", "");
  models::LengthDistribution d;
  if (kind == "fixed") {
    d.kind = Kind::kFixed;
    d.value = map.Number("value", 0, 0);
  } else if (kind == "uniform") {
    d.kind = Kind::kUniform;
    d.min = map.Number("min", 0, 0);
    d.max = map.Number("max", d.min, d.min);
  } else if (kind == "lognormal") {
    d.kind = Kind::kLognormal;
    d.median = map.Number("median", 0, 1e-9);
    d.sigma = map.Number("sigma", 0, 0);
    d.min = map.Number("min", 0, 0);
    d.max = map.Number("max", 0, 0);
    if (d.max > 0 && d.max < d.min) map.ctx().Fail(node, path + ".max", "must be >= min");
  } else {
    ctx.Fail(At(node, "kind"), path + ".kind",
             "unknown distribution '" + kind + "' (valid: fixed, uniform, lognormal)");
  }
  map.Finish();
  return d;
}

// A policy entry: a name, or a map of `name` and parameters, checked against
// the registry. `path` names it in errors.
PolicySpec ParsePolicyEntry(const Context& ctx, const YAML::Node& entry, const std::string& path) {
  PolicySpec spec;
  spec.where = ctx.Where(entry, path);
  YAML::Node name_node = entry;
  if (entry.IsScalar()) {
    spec.name = entry.as<std::string>();
  } else if (entry.IsMap()) {
    name_node.reset(At(entry, "name"));  // rebinds; operator= would overwrite `entry`
    if (!name_node.IsDefined() || !name_node.IsScalar()) {
      ctx.Fail(entry, path + ".name", "required key is missing");
    }
    spec.name = name_node.as<std::string>();
    for (const auto& kv : entry) {
      std::string key = kv.first.as<std::string>();
      if (key == "name") continue;
      if (key == "label") {
        if (!kv.second.IsScalar() || kv.second.as<std::string>().empty())
          ctx.Fail(kv.second, path + ".label", "expected a non-empty name");
        spec.label = kv.second.as<std::string>();
        continue;
      }
      double value = 0;
      std::string text;
      if (!kv.second.IsScalar()) {
        ctx.Fail(kv.second, path + "." + key, "expected a number or a name");
      }
      if (!YAML::convert<double>::decode(kv.second, value)) text = kv.second.as<std::string>();
      spec.params.push_back({key, value, ctx.Where(kv.first, path + "." + key), text});
    }
  } else {
    ctx.Fail(entry, path, "expected a policy name or a map with 'name'");
  }
  try {
    policies::ResolveParams(policies::FindPolicy(spec.name), spec.params);
  } catch (const policies::PolicyConfigError& e) {
    // Parameter errors already carry their location.
    std::string message = e.what();
    if (message.rfind("unknown policy", 0) == 0) ctx.Fail(name_node, path + ".name", message);
    throw ScenarioError(message);
  }
  if (spec.label.empty()) spec.label = spec.name;
  return spec;
}

void ParseCluster(MapReader& top, Scenario* s) {
  MapReader cluster(top.ctx(), top.Required("cluster"), "cluster");
  YAML::Node profile_node = cluster.node()["profile"];
  s->profile = cluster.String("profile", s->profile);
  try {
    s->resolved_profile = models::FindProfile(s->profile);
  } catch (const std::invalid_argument& e) {
    cluster.ctx().Fail(profile_node, "cluster.profile", e.what());
  } catch (const sim::YamlError& e) {
    cluster.ctx().Fail(profile_node, "cluster.profile", e.what());
  }
  YAML::Node deployments = cluster.Required("deployments");
  if (!deployments.IsSequence() || deployments.size() == 0) {
    cluster.ctx().Fail(deployments, "cluster.deployments", "expected a non-empty list");
  }
  for (size_t i = 0; i < deployments.size(); ++i) {
    MapReader d(cluster.ctx(), deployments[i], "cluster.deployments[" + std::to_string(i) + "]");
    DeploymentSpec spec;
    spec.name = d.String("name", "d" + std::to_string(i));
    spec.replicas = static_cast<uint32_t>(d.Integer("replicas", 0, 1, 100000));
    if (!d.node()["replicas"].IsDefined()) {
      cluster.ctx().Fail(deployments[i], d.Child("replicas"), "required key is missing");
    }
    spec.weight = d.Number("weight", 1, 0);
    if (YAML::Node schedule = d.Take("schedule"); schedule.IsDefined()) {
      if (!schedule.IsSequence())
        cluster.ctx().Fail(schedule, d.Child("schedule"), "expected a list");
      for (size_t k = 0; k < schedule.size(); ++k) {
        MapReader step(cluster.ctx(), schedule[k],
                       d.Child("schedule") + "[" + std::to_string(k) + "]");
        step.Required("at_s");
        step.Required("weight");
        WeightStep w{step.Number("at_s", 0, 0), step.Number("weight", 0, 0)};
        if (!spec.schedule.empty() && w.at_s <= spec.schedule.back().at_s) {
          cluster.ctx().Fail(At(schedule[k], "at_s"), step.Child("at_s"),
                             "steps must be in strictly increasing at_s");
        }
        step.Finish();
        spec.schedule.push_back(w);
      }
    }
    if (YAML::Node policy = d.Take("policy"); policy.IsDefined()) {
      spec.policy = ParsePolicyEntry(cluster.ctx(), policy, d.Child("policy"));
    }
    d.Finish();
    for (const DeploymentSpec& other : s->deployments) {
      if (other.name == spec.name) {
        cluster.ctx().Fail(At(deployments[i], "name"), d.Child("name"),
                           "deployment '" + spec.name + "' is listed twice");
      }
    }
    s->deployments.push_back(spec);
  }
  // vLLM's engine defaults for the profile's GPU (models/engine.h), unless
  // the scenario sets its own.
  const models::EngineSettings engine = s->resolved_profile.ResolvedEngine();
  s->scheduler.max_num_batched_tokens = engine.max_num_batched_tokens;
  s->scheduler.max_num_seqs = engine.max_num_seqs;
  s->scheduler.cache_generated_tokens = engine.cache_generated_tokens;
  if (YAML::Node sched = cluster.Take("scheduler"); sched.IsDefined()) {
    MapReader m(cluster.ctx(), sched, "cluster.scheduler");
    s->scheduler.max_num_batched_tokens = static_cast<int>(
        m.Integer("max_num_batched_tokens", s->scheduler.max_num_batched_tokens, 1));
    s->scheduler.max_num_seqs =
        static_cast<int>(m.Integer("max_num_seqs", s->scheduler.max_num_seqs, 1));
    m.Finish();
  }
  s->kv_blocks = static_cast<int64_t>(cluster.Integer("kv_blocks", 0, 1, 1ULL << 27));
  YAML::Node eviction_node = At(cluster.node(), "eviction");
  std::string eviction = cluster.String("eviction", "radix_lru");
  if (eviction == "radix_lru") {
    s->scheduler.eviction = models::EvictionOrder::kRadixLru;
  } else if (eviction == "vllm_free_queue") {
    s->scheduler.eviction = models::EvictionOrder::kVllmFreeQueue;
  } else {
    cluster.ctx().Fail(
        eviction_node, "cluster.eviction",
        "unknown eviction order '" + eviction + "' (valid: radix_lru, vllm_free_queue)");
  }
  if (YAML::Node cost = cluster.Take("cost_model"); cost.IsDefined()) {
    MapReader m(cluster.ctx(), cost, "cluster.cost_model");
    std::string kind = m.String("kind", "roofline");
    if (kind == "fixed") {
      m.Required("iteration_s");
      s->fixed_iteration_s = m.Number("iteration_s", 0, 1e-9, 1e6);
    } else if (kind != "roofline") {
      cluster.ctx().Fail(At(cost, "kind"), "cluster.cost_model.kind",
                         "unknown cost model '" + kind + "' (valid: roofline, fixed)");
    }
    m.Finish();
  }
  // A fixed-cost replica is the queueing-theory ideal: no pipelined scheduler.
  s->scheduler.async_scheduling = s->fixed_iteration_s > 0 ? false : engine.async_scheduling;
  s->signal_refresh_s = cluster.Number("signal_refresh_s", 0, 0, 1e7);
  s->lambda_h = cluster.Number("lambda_h", s->lambda_h, 0, 1e4);
  YAML::Node estimate_node = At(cluster.node(), "deployment_hit_estimate");
  std::string estimate = cluster.String("deployment_hit_estimate", "exact");
  if (estimate == "router") {
    s->deployment_hit_estimate = Scenario::HitEstimate::kRouter;
  } else if (estimate != "exact") {
    cluster.ctx().Fail(estimate_node, "cluster.deployment_hit_estimate",
                       "unknown estimate '" + estimate + "' (valid: exact, router)");
  }
  s->series_interval_s = cluster.Number("series_interval_s", s->series_interval_s, 1e-3);
  cluster.Finish();
}

bool ParseBool(const Context& ctx, const YAML::Node& n, const std::string& path) {
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value))
    ctx.Fail(n, path, "expected true or false");
  return value;
}

void ParseRateSkew(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node skew = w.Take("rate_skew");
  if (!skew.IsDefined()) return;
  MapReader m(w.ctx(), skew, "workload.rate_skew");
  std::string kind = m.String("kind", "zipf");
  models::KeyRateConfig& r = c->rates;
  if (kind == "zipf") {
    r.kind = models::KeyRateConfig::Kind::kZipf;
    r.zipf_s = m.Number("s", r.zipf_s, 0, 10);
  } else if (kind == "lognormal") {
    r.kind = models::KeyRateConfig::Kind::kLognormal;
    r.sigma = m.Number("sigma", r.sigma, 0, 10);
  } else if (kind == "gini") {
    r.kind = models::KeyRateConfig::Kind::kGini;
    m.Required("target");
    r.gini = m.Number("target", r.gini, 0, 0.999);
    r.max_share = m.Number("max_share", 1.0, 1e-9, 1);
  } else {
    w.ctx().Fail(At(skew, "kind"), "workload.rate_skew.kind",
                 "unknown rate distribution '" + kind + "' (valid: zipf, lognormal, gini)");
  }
  m.Finish();
}

void ParseArrivals(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node arrivals = w.Take("arrivals");
  if (!arrivals.IsDefined()) return;
  MapReader m(w.ctx(), arrivals, "workload.arrivals");
  std::string kind = m.String("kind", "poisson");
  models::ArrivalConfig& a = c->arrivals;
  if (kind == "poisson") {
    a.kind = models::ArrivalConfig::Kind::kPoisson;
  } else if (kind == "gamma") {
    a.kind = models::ArrivalConfig::Kind::kGamma;
    a.cv = m.Number("cv", a.cv, 0.01, 20);
  } else if (kind == "bootstrap") {
    a.kind = models::ArrivalConfig::Kind::kBootstrap;
    YAML::Node file = m.Required("file");
    a.source = m.String("file", "");
    a.block = static_cast<uint32_t>(m.Integer("block", a.block, 1, 1'000'000));
    try {
      models::TraceConfig::Format format = models::GuessTraceFormat(a.source);
      if (format == models::TraceConfig::Format::kNone) {
        a.gaps = models::ReadGapsFile(a.source);
      } else {
        models::Trace trace = models::ReadTrace({.format = format, .file = a.source});
        for (size_t i = 1; i < trace.records.size(); ++i) {
          a.gaps.push_back(sim::ToSeconds(trace.records[i].time_ns - trace.records[i - 1].time_ns));
        }
      }
    } catch (const std::runtime_error& e) {
      w.ctx().Fail(file, "workload.arrivals.file", e.what());
    }
    double total = 0;
    for (double g : a.gaps) total += g;
    if (a.gaps.size() < a.block || !(total > 0)) {
      w.ctx().Fail(file, "workload.arrivals.file",
                   "needs at least `block` (" + std::to_string(a.block) +
                       ") gaps with a positive mean, has " + std::to_string(a.gaps.size()));
    }
  } else {
    w.ctx().Fail(At(arrivals, "kind"), "workload.arrivals.kind",
                 "unknown arrival process '" + kind + "' (valid: poisson, gamma, bootstrap)");
  }
  m.Finish();
}

void ParsePrompt(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node prompt = w.Take("prompt");
  if (!prompt.IsDefined()) return;
  MapReader m(w.ctx(), prompt, "workload.prompt");
  c->system_tokens =
      static_cast<uint32_t>(m.Integer("system_tokens", c->system_tokens, 0, 10'000'000));
  if (YAML::Node n = m.Take("new_tokens"); n.IsDefined()) {
    c->new_tokens = ParseLength(w.ctx(), n, "workload.prompt.new_tokens");
  }
  c->no_prefix_share = m.Number("no_prefix_share", c->no_prefix_share, 0, 1);
  if (YAML::Node rag = m.Take("rag"); rag.IsDefined()) {
    MapReader r(w.ctx(), rag, "workload.prompt.rag");
    r.Required("documents");
    c->rag.documents = static_cast<uint32_t>(r.Integer("documents", 0, 1, 100'000'000));
    c->rag.popularity_s = r.Number("popularity_s", c->rag.popularity_s, 0, 10);
    if (YAML::Node n = r.Take("chunks"); n.IsDefined()) {
      c->rag.chunks = ParseLength(w.ctx(), n, "workload.prompt.rag.chunks");
    }
    c->rag.chunk_tokens =
        static_cast<uint32_t>(r.Integer("chunk_tokens", c->rag.chunk_tokens, 1, 1'000'000));
    r.Finish();
  }
  m.Finish();
}

void ParseSessions(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node sessions = w.Take("sessions");
  if (!sessions.IsDefined()) return;
  MapReader m(w.ctx(), sessions, "workload.sessions");
  YAML::Node turns = m.Required("turns");
  c->sessions.turns = ParseLength(w.ctx(), turns, "workload.sessions.turns");
  // Sessions start at the load divided by the mean draw, and every session has
  // at least one turn: draws of 0 would silently raise the offered load.
  const models::LengthDistribution& t = c->sessions.turns;
  double lowest = t.kind == models::LengthDistribution::Kind::kFixed ? t.value : t.min;
  if (lowest < 1) {
    w.ctx().Fail(turns, "workload.sessions.turns",
                 "every draw must be at least one turn (set min: 1)");
  }
  if (YAML::Node n = m.Take("think_time_s"); n.IsDefined()) {
    c->sessions.think_time_s = ParseLength(w.ctx(), n, "workload.sessions.think_time_s");
  }
  m.Finish();
}

void ParseLoadSchedule(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node list = w.Take("load_schedule");
  if (!list.IsDefined()) return;
  if (!list.IsSequence() || list.size() == 0) {
    w.ctx().Fail(list, "workload.load_schedule", "expected a non-empty list of {until_s, factor}");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "workload.load_schedule[" + std::to_string(i) + "]";
    MapReader m(w.ctx(), list[i], path);
    models::LoadStep step;
    m.Required("until_s");
    step.until_s = m.Number("until_s", 0, 1e-9, 1e7);
    step.factor = m.Number("factor", 1, 1e-6, 1e6);
    m.Finish();
    if (!c->load_schedule.empty() && step.until_s <= c->load_schedule.back().until_s) {
      w.ctx().Fail(list[i], path + ".until_s", "steps must end at strictly increasing times");
    }
    c->load_schedule.push_back(step);
  }
}

void ParseDrift(MapReader& w, models::WorkloadConfig* c) {
  YAML::Node drift = w.Take("drift");
  if (!drift.IsDefined()) return;
  MapReader m(w.ctx(), drift, "workload.drift");
  m.Required("sigma");
  c->drift.sigma = m.Number("sigma", 0, 0, 10);
  c->drift.interval_s = m.Number("interval_s", c->drift.interval_s, 1e-3, 1e7);
  m.Finish();
}

// Returns the trace's own rate when its timing is native, else 0.
double ParseTrace(MapReader& w, const YAML::Node& trace, models::WorkloadConfig* c) {
  MapReader m(w.ctx(), trace, "workload.trace");
  YAML::Node format_node = m.Required("format");
  std::string format = m.String("format", "");
  if (format == "mooncake") {
    c->trace.format = models::TraceConfig::Format::kMooncake;
  } else if (format == "azure") {
    c->trace.format = models::TraceConfig::Format::kAzure;
  } else {
    w.ctx().Fail(format_node, "workload.trace.format",
                 "unknown trace format '" + format + "' (valid: mooncake, azure)");
  }
  YAML::Node file = m.Required("file");
  c->trace.file = m.String("file", "");
  if (YAML::Node n = m.Take("loop"); n.IsDefined()) {
    c->trace.loop = ParseBool(w.ctx(), n, "workload.trace.loop");
  }
  c->trace.skip = m.Integer("skip", 0, 0, UINT64_MAX >> 12);
  c->trace.limit = m.Integer("limit", 0, 0, UINT64_MAX >> 12);
  c->trace.key_blocks =
      static_cast<uint32_t>(m.Integer("key_blocks", c->trace.key_blocks, 1, 1000));
  if (YAML::Node n = m.Take("timing"); n.IsDefined()) {
    std::string timing = n.IsScalar() ? n.Scalar() : "";
    if (timing == "native") {
      c->trace.timing = models::TraceConfig::Timing::kNative;
    } else if (timing != "scaled") {
      w.ctx().Fail(n, "workload.trace.timing",
                   "unknown timing '" + timing + "' (valid: scaled, native)");
    }
  }
  m.Finish();
  try {
    // Read now, so that errors come before the sweep, not in its middle.
    models::Trace read = models::ReadTrace(c->trace);
    return c->trace.timing == models::TraceConfig::Timing::kNative ? models::NativeQps(read) : 0;
  } catch (const models::TraceError& e) {
    w.ctx().Fail(file, "workload.trace.file", e.what());
  }
  return 0;
}

// Returns the trace's own rate when a trace is replayed at native timing, else 0.
double ParseWorkload(MapReader& top, Scenario* s) {
  YAML::Node node = top.Required("workload");
  MapReader w(top.ctx(), node, "workload");
  models::WorkloadConfig& c = s->workload;
  if (YAML::Node trace = w.Take("trace"); trace.IsDefined()) {
    double native_qps = ParseTrace(w, trace, &c);
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      if (key != "trace") {
        w.ctx().Fail(entry.first, "workload." + key,
                     "a trace replaces the synthetic workload; remove this key or the trace");
      }
    }
    return native_qps;
  }
  c.keys = static_cast<uint32_t>(w.Integer("keys", c.keys, 1, 100'000'000));
  c.tenants = static_cast<uint32_t>(w.Integer("tenants", c.tenants, 0, 100'000'000));
  YAML::Node skew = At(node, "rate_skew");
  ParseRateSkew(w, &c);
  YAML::Node active = At(node, "active_keys");
  c.rates.active_keys = static_cast<uint32_t>(w.Integer("active_keys", 0, 0, 100'000'000));
  if (c.rates.active_keys > c.keys) w.ctx().Fail(active, "workload.active_keys", "must be <= keys");
  if (YAML::Node whales = w.Take("whales"); whales.IsDefined()) {
    if (!whales.IsSequence()) w.ctx().Fail(whales, "workload.whales", "expected a list of shares");
    double total = 0;
    for (size_t i = 0; i < whales.size(); ++i) {
      double share = 0;
      if (!whales[i].IsScalar() || !YAML::convert<double>::decode(whales[i], share) ||
          !(share > 0 && share < 1)) {
        w.ctx().Fail(whales[i], "workload.whales[" + std::to_string(i) + "]",
                     "expected a share in (0, 1)");
      }
      total += share;
      c.rates.whales.push_back(share);
    }
    if (!(total < 1) || c.rates.whales.size() >= c.keys) {
      w.ctx().Fail(whales, "workload.whales",
                   "whale shares must sum below 1, with fewer whales than keys");
    }
  }
  ParsePrompt(w, &c);
  if (YAML::Node n = w.Take("output_tokens"); n.IsDefined()) {
    c.output_tokens = ParseLength(w.ctx(), n, "workload.output_tokens");
  }
  ParseSessions(w, &c);
  ParseArrivals(w, &c);
  ParseLoadSchedule(w, &c);
  ParseDrift(w, &c);
  w.Finish();
  try {
    models::KeyShares(c.keys, c.rates);  // an unreachable Gini fails here, with its place
  } catch (const std::invalid_argument& e) {
    w.ctx().Fail(skew, "workload.rate_skew", e.what());
  }
  return 0;
}

void ParsePolicies(MapReader& top, Scenario* s) {
  YAML::Node list = top.Required("policies");
  const Context& ctx = top.ctx();
  if (!list.IsSequence() || list.size() == 0)
    ctx.Fail(list, "policies", "expected a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "policies[" + std::to_string(i) + "]";
    YAML::Node entry = list[i];
    PolicySpec spec = ParsePolicyEntry(ctx, entry, path);
    for (const PolicySpec& other : s->policies) {
      if (other.label == spec.label)
        ctx.Fail(entry, path,
                 "policy '" + spec.label + "' is listed twice (give one a different 'label')");
    }
    s->policies.push_back(spec);
  }
}

void ParseLoadGrid(MapReader& top, MapReader& sweep, Scenario* s) {
  YAML::Node qps = sweep.Required("qps");
  if (!qps.IsSequence() || qps.size() == 0)
    top.ctx().Fail(qps, "sweep.qps", "expected a non-empty list");
  for (size_t i = 0; i < qps.size(); ++i) {
    double value = 0;
    if (!qps[i].IsScalar() || !YAML::convert<double>::decode(qps[i], value) || !(value > 0) ||
        !std::isfinite(value)) {
      top.ctx().Fail(qps[i], "sweep.qps[" + std::to_string(i) + "]", "expected a positive number");
    }
    if (!s->qps.empty() && value <= s->qps.back()) {
      top.ctx().Fail(qps[i], "sweep.qps[" + std::to_string(i) + "]",
                     "loads must be strictly increasing");
    }
    s->qps.push_back(value);
  }
  YAML::Node reference = sweep.node()["reference_qps"];
  s->reference_qps = sweep.Number("reference_qps", s->qps[s->qps.size() / 2], 1e-9);
  if (std::find(s->qps.begin(), s->qps.end(), s->reference_qps) == s->qps.end()) {
    top.ctx().Fail(reference, "sweep.reference_qps", "must be one of the loads in sweep.qps");
  }
  s->precision_qps = sweep.Number("precision_qps", 0, 0);
}

// `native_qps` > 0: a trace replayed at its own timing, whose rate is the
// only load; the sweep then gives no load and may be left out.
void ParseSweep(MapReader& top, Scenario* s, double native_qps) {
  if (native_qps > 0) {
    s->qps = {native_qps};
    s->reference_qps = native_qps;
  }
  YAML::Node node = native_qps > 0 ? top.Take("sweep") : top.Required("sweep");
  if (!node.IsDefined()) return;
  MapReader sweep(top.ctx(), node, "sweep");
  if (native_qps > 0) {
    std::ostringstream msg;
    msg << std::setprecision(12) << "workload.trace.timing is native: the trace is replayed at "
        << "its own rate, " << native_qps << " QPS, the only load; remove this key, or set "
        << "timing: scaled to sweep loads";
    for (const char* key : {"qps", "reference_qps", "precision_qps"}) {
      if (YAML::Node n = sweep.Take(key); n.IsDefined()) {
        top.ctx().Fail(n, std::string("sweep.") + key, msg.str());
      }
    }
  } else {
    ParseLoadGrid(top, sweep, s);
  }
  YAML::Node baseline = sweep.node()["baseline"];
  s->baseline = sweep.String("baseline", "");
  if (!s->baseline.empty() &&
      std::none_of(s->policies.begin(), s->policies.end(),
                   [&](const PolicySpec& p) { return p.label == s->baseline; })) {
    top.ctx().Fail(baseline, "sweep.baseline", "'" + s->baseline + "' is not one of the policies");
  }
  sweep.Finish();
}

void ParseSlos(MapReader& top, Scenario* s) {
  YAML::Node list = top.Required("slo");
  const Context& ctx = top.ctx();
  if (!list.IsSequence() || list.size() == 0) ctx.Fail(list, "slo", "expected a non-empty list");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "slo[" + std::to_string(i) + "]";
    MapReader m(ctx, list[i], path);
    analysis::Slo slo;
    YAML::Node metric_node = At(list[i], "metric");
    std::string metric = m.String("metric", "ttft");
    if (metric == "ttft")
      slo.metric = analysis::LatencyMetric::kTtft;
    else if (metric == "tpot")
      slo.metric = analysis::LatencyMetric::kTpot;
    else if (metric == "e2e")
      slo.metric = analysis::LatencyMetric::kE2e;
    else
      ctx.Fail(metric_node, path + ".metric",
               "unknown metric '" + metric + "' (valid: ttft, tpot, e2e)");
    slo.percentile = m.Number("percentile", 99, 1e-9, 100);
    YAML::Node threshold = m.Required("threshold_s");
    slo.threshold_s = m.Number("threshold_s", 0, 1e-9);
    (void)threshold;
    m.Finish();
    s->slos.push_back(slo);
  }
}

void ParseFailures(MapReader& top, Scenario* s) {
  YAML::Node node = top.Take("failures");
  if (!node.IsDefined()) return;
  MapReader f(top.ctx(), node, "failures");
  s->retry_limit = static_cast<uint32_t>(f.Integer("retry_limit", s->retry_limit, 0, 100));
  YAML::Node schedule = f.Take("schedule");
  if (schedule.IsDefined() && !schedule.IsSequence()) {
    top.ctx().Fail(schedule, "failures.schedule", "expected a list");
  }
  for (size_t i = 0; schedule.IsDefined() && i < schedule.size(); ++i) {
    std::string path = "failures.schedule[" + std::to_string(i) + "]";
    MapReader e(top.ctx(), schedule[i], path);
    FailureEvent event;
    e.Required("replica");
    event.replica = static_cast<uint32_t>(e.Integer("replica", 0, 0, s->replica_count() - 1));
    e.Required("at_s");
    event.at_s = e.Number("at_s", 0, 0, s->duration_s + s->drain_s);
    event.recover_after_s = e.Number("recover_after_s", 0, 0, 1e7);
    e.Finish();
    for (const FailureEvent& other : s->failures) {
      if (other.replica != event.replica) continue;
      double other_end = other.recover_after_s > 0 ? other.at_s + other.recover_after_s : INFINITY;
      double end = event.recover_after_s > 0 ? event.at_s + event.recover_after_s : INFINITY;
      if (event.at_s < other_end && other.at_s < end) {
        top.ctx().Fail(schedule[i], path,
                       "overlaps an earlier failure of replica " + std::to_string(event.replica));
      }
    }
    s->failures.push_back(event);
  }
  f.Finish();
}

void ApplyOverride(YAML::Node root, const std::string& assignment, Context* ctx) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ScenarioError("--set " + assignment + ": expected path.to.key=value");
  }
  std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ScenarioError("--set " + assignment + ": value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> parts;
  std::stringstream stream(path);
  for (std::string part; std::getline(stream, part, '.');) {
    if (part.empty()) throw ScenarioError("--set " + assignment + ": empty key in path");
    parts.push_back(part);
  }
  // yaml-cpp nodes are handles: walking with operator[] on non-const nodes
  // creates missing maps, so the last assignment lands in the document.
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (next.IsDefined() && !next.IsMap()) {
      throw ScenarioError("--set " + assignment + ": '" + parts[i] + "' is not a map");
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
  ctx->MarkOverridden(path);
}

Scenario Parse(const std::string& text, const std::string& source,
               const std::vector<std::string>& overrides) {
  Context ctx(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(source + ":" + std::to_string(e.mark.line + 1) +
                        ": invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw ScenarioError(source + ": expected a map at the top level");
  for (const std::string& o : overrides) ApplyOverride(root, o, &ctx);

  Scenario s;
  s.source = source;
  MapReader top(ctx, root, "");
  YAML::Node name = top.Required("name");
  s.name = top.String("name", "");
  (void)name;
  s.seed = top.Integer("seed", s.seed, 0, UINT64_MAX >> 12);
  s.seeds = static_cast<uint32_t>(top.Integer("seeds", s.seeds, 1, 10000));
  s.duration_s = top.Number("duration_s", s.duration_s, 1e-3, 1e7);
  s.warmup_s = top.Number("warmup_s", s.warmup_s, 0, 1e7);
  s.drain_s = top.Number("drain_s", s.drain_s, 0, 1e7);
  if (s.warmup_s >= s.duration_s) {
    ctx.Fail(At(root, "warmup_s"), "warmup_s", "must be less than duration_s");
  }
  ParseCluster(top, &s);
  double native_qps = ParseWorkload(top, &s);
  ParsePolicies(top, &s);
  ParseSweep(top, &s, native_qps);
  ParseSlos(top, &s);
  ParseFailures(top, &s);
  top.Finish();
  s.workload.block_size_tokens = s.resolved_profile.ResolvedEngine().block_size_tokens;

  YAML::Emitter emitter;
  emitter << root;
  s.yaml = emitter.c_str();
  return s;
}

}  // namespace

std::vector<uint64_t> Scenario::SeedList() const {
  std::vector<uint64_t> list;
  for (uint32_t i = 0; i < seeds; ++i) list.push_back(seed + i);
  return list;
}

Scenario LoadScenarioText(const std::string& text, const std::string& source,
                          const std::vector<std::string>& overrides) {
  try {
    return Parse(text, source, overrides);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Scenario LoadScenarioFile(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open scenario file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return LoadScenarioText(buffer.str(), path, overrides);
}

}  // namespace kvroute::sim
