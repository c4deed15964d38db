#include "sim/runner/resolved_scenario.h"

#include <yaml-cpp/yaml.h>

#include <charconv>

#include "policies/registry.h"

namespace kvroute::sim {
namespace {

// Doubles in their shortest exact form, so that the YAML reads back to the
// same bits.
std::string Real(double v) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

class Writer {
 public:
  Writer() { out_ << YAML::BeginMap; }

  Writer& Key(const char* key) {
    out_ << YAML::Key << key << YAML::Value;
    return *this;
  }
  Writer& Number(const char* key, double v) {
    Key(key);
    out_ << Real(v);
    return *this;
  }
  Writer& Integer(const char* key, uint64_t v) {
    Key(key);
    out_ << v;
    return *this;
  }
  Writer& Text(const char* key, const std::string& v) {
    Key(key);
    out_ << YAML::DoubleQuoted << v;
    return *this;
  }
  Writer& Word(const char* key, const char* v) {
    Key(key);
    out_ << v;
    return *this;
  }
  Writer& Comment(const std::string& text) {
    out_ << YAML::Comment(text);
    return *this;
  }
  void BeginMap(const char* key) {
    Key(key);
    out_ << YAML::BeginMap;
  }
  void BeginMap() { out_ << YAML::BeginMap; }
  void EndMap() { out_ << YAML::EndMap; }
  void BeginList(const char* key, bool flow = false) {
    Key(key);
    if (flow) out_ << YAML::Flow;
    out_ << YAML::BeginSeq;
  }
  void EndList() { out_ << YAML::EndSeq; }
  void Item(double v) { out_ << Real(v); }

  std::string Finish() {
    out_ << YAML::EndMap;
    return std::string(out_.c_str()) + "\n";
  }

 private:
  YAML::Emitter out_;
};

void Length(Writer& w, const char* key, const models::LengthDistribution& d) {
  using Kind = models::LengthDistribution::Kind;
  w.BeginMap(key);
  switch (d.kind) {
    case Kind::kFixed:
      w.Word("kind", "fixed").Number("value", d.value);
      break;
    case Kind::kUniform:
      w.Word("kind", "uniform").Number("min", d.min).Number("max", d.max);
      break;
    case Kind::kLognormal:
      w.Word("kind", "lognormal")
          .Number("median", d.median)
          .Number("sigma", d.sigma)
          .Number("min", d.min)
          .Number("max", d.max);
      break;
  }
  w.EndMap();
}

// A policy entry with every parameter, defaults filled in.
void Policy(Writer& w, const PolicySpec& spec) {
  const policies::PolicyInfo& info = policies::FindPolicy(spec.name);
  policies::Params params = policies::ResolveParams(info, spec.params);
  w.Text("name", spec.name).Text("label", spec.label);
  for (size_t i = 0; i < info.params.size(); ++i) {
    const policies::ParamSpec& p = info.params[i];
    const double value = params.values()[i];
    if (!p.choices.empty()) {
      w.Text(p.name.c_str(), p.choices.at(static_cast<size_t>(value)));
    } else if (p.integer) {
      w.Integer(p.name.c_str(), static_cast<uint64_t>(value));
    } else {
      w.Number(p.name.c_str(), value);
    }
  }
}

void Cluster(Writer& w, const Scenario& s) {
  w.BeginMap("cluster");
  w.Text("profile", s.profile);
  w.BeginList("deployments");
  for (const DeploymentSpec& d : s.deployments) {
    w.BeginMap();
    w.Text("name", d.name).Integer("replicas", d.replicas).Number("weight", d.weight);
    if (!d.schedule.empty()) {
      w.BeginList("schedule");
      for (const WeightStep& step : d.schedule) {
        w.BeginMap();
        w.Number("at_s", step.at_s).Number("weight", step.weight);
        w.EndMap();
      }
      w.EndList();
    }
    if (d.policy) {
      w.BeginMap("policy");
      Policy(w, *d.policy);
      w.EndMap();
    }
    w.EndMap();
  }
  w.EndList();
  w.BeginMap("scheduler");
  w.Integer("max_num_batched_tokens", static_cast<uint64_t>(s.scheduler.max_num_batched_tokens))
      .Integer("max_num_seqs", static_cast<uint64_t>(s.scheduler.max_num_seqs));
  w.EndMap();
  if (s.kv_blocks > 0) {
    w.Integer("kv_blocks", static_cast<uint64_t>(s.kv_blocks));
  } else {
    w.Integer("kv_blocks", static_cast<uint64_t>(s.resolved_profile.KvCapacityBlocks()))
        .Comment("derived from the profile");
  }
  w.Word("eviction", s.scheduler.eviction == models::EvictionOrder::kRadixLru ? "radix_lru"
                                                                              : "vllm_free_queue");
  w.BeginMap("cost_model");
  if (s.fixed_iteration_s > 0) {
    w.Word("kind", "fixed").Number("iteration_s", s.fixed_iteration_s);
  } else {
    w.Word("kind", "roofline");
  }
  w.EndMap();
  w.Number("signal_refresh_s", s.signal_refresh_s).Number("lambda_h", s.lambda_h);
  w.Word("deployment_hit_estimate",
         s.deployment_hit_estimate == Scenario::HitEstimate::kRouter ? "router" : "exact");
  w.Number("series_interval_s", s.series_interval_s);
  w.EndMap();
}

void Trace(Writer& w, const models::TraceConfig& t) {
  w.BeginMap("trace");
  w.Word("format", t.format == models::TraceConfig::Format::kMooncake ? "mooncake" : "azure");
  w.Text("file", t.file);
  w.Word("loop", t.loop ? "true" : "false");
  w.Integer("skip", t.skip).Integer("limit", t.limit).Integer("key_blocks", t.key_blocks);
  w.Word("timing", t.timing == models::TraceConfig::Timing::kNative ? "native" : "scaled");
  w.EndMap();
}

void RateSkew(Writer& w, const models::KeyRateConfig& r) {
  using Kind = models::KeyRateConfig::Kind;
  w.BeginMap("rate_skew");
  if (r.kind == Kind::kZipf) {
    w.Word("kind", "zipf").Number("s", r.zipf_s);
  } else if (r.kind == Kind::kLognormal) {
    w.Word("kind", "lognormal").Number("sigma", r.sigma);
  } else {
    w.Word("kind", "gini").Number("target", r.gini).Number("max_share", r.max_share);
  }
  w.EndMap();
}

void Arrivals(Writer& w, const models::ArrivalConfig& a) {
  using Kind = models::ArrivalConfig::Kind;
  w.BeginMap("arrivals");
  if (a.kind == Kind::kPoisson) {
    w.Word("kind", "poisson");
  } else if (a.kind == Kind::kGamma) {
    w.Word("kind", "gamma").Number("cv", a.cv);
  } else {
    w.Word("kind", "bootstrap").Text("file", a.source).Integer("block", a.block);
  }
  w.EndMap();
}

void Workload(Writer& w, const models::WorkloadConfig& c) {
  w.BeginMap("workload");
  if (c.trace.format != models::TraceConfig::Format::kNone) {
    Trace(w, c.trace);  // a trace replaces every other workload key
    w.EndMap();
    return;
  }
  w.Integer("keys", c.keys).Integer("tenants", c.tenants);
  RateSkew(w, c.rates);
  w.Integer("active_keys", c.rates.active_keys);
  if (!c.rates.whales.empty()) {
    w.BeginList("whales", /*flow=*/true);
    for (double share : c.rates.whales) w.Item(share);
    w.EndList();
  }
  w.BeginMap("prompt");
  w.Integer("system_tokens", c.system_tokens);
  Length(w, "new_tokens", c.new_tokens);
  w.Number("no_prefix_share", c.no_prefix_share);
  if (c.rag.documents > 0) {
    w.BeginMap("rag");
    w.Integer("documents", c.rag.documents).Number("popularity_s", c.rag.popularity_s);
    Length(w, "chunks", c.rag.chunks);
    w.Integer("chunk_tokens", c.rag.chunk_tokens);
    w.EndMap();
  }
  w.EndMap();
  Length(w, "output_tokens", c.output_tokens);
  w.BeginMap("sessions");
  Length(w, "turns", c.sessions.turns);
  Length(w, "think_time_s", c.sessions.think_time_s);
  w.EndMap();
  Arrivals(w, c.arrivals);
  if (!c.load_schedule.empty()) {
    w.BeginList("load_schedule");
    for (const models::LoadStep& step : c.load_schedule) {
      w.BeginMap();
      w.Number("until_s", step.until_s).Number("factor", step.factor);
      w.EndMap();
    }
    w.EndList();
  }
  w.BeginMap("drift");
  w.Number("sigma", c.drift.sigma).Number("interval_s", c.drift.interval_s);
  w.EndMap();
  w.EndMap();
}

void Sweep(Writer& w, const Scenario& s) {
  const bool native = s.workload.trace.format != models::TraceConfig::Format::kNone &&
                      s.workload.trace.timing == models::TraceConfig::Timing::kNative;
  if (native) {
    // The trace's own rate is the only load; the loader refuses a grid.
    if (!s.baseline.empty()) {
      w.BeginMap("sweep");
      w.Text("baseline", s.baseline);
      w.EndMap();
    }
    return;
  }
  w.BeginMap("sweep");
  w.BeginList("qps", /*flow=*/true);
  for (double q : s.qps) w.Item(q);
  w.EndList();
  w.Number("reference_qps", s.reference_qps).Number("precision_qps", s.precision_qps);
  if (!s.baseline.empty()) w.Text("baseline", s.baseline);
  w.EndMap();
}

}  // namespace

std::string ResolvedScenarioYaml(const Scenario& s) {
  Writer w;
  w.Text("name", s.name)
      .Integer("seed", s.seed)
      .Integer("seeds", s.seeds)
      .Number("duration_s", s.duration_s)
      .Number("warmup_s", s.warmup_s)
      .Number("drain_s", s.drain_s);
  Cluster(w, s);
  Workload(w, s.workload);
  w.BeginList("policies");
  for (const PolicySpec& p : s.policies) {
    w.BeginMap();
    Policy(w, p);
    w.EndMap();
  }
  w.EndList();
  Sweep(w, s);
  w.BeginList("slo");
  for (const analysis::Slo& slo : s.slos) {
    w.BeginMap();
    w.Word("metric", analysis::MetricName(slo.metric))
        .Number("percentile", slo.percentile)
        .Number("threshold_s", slo.threshold_s);
    w.EndMap();
  }
  w.EndList();
  w.BeginMap("failures");
  w.Integer("retry_limit", s.retry_limit);
  w.BeginList("schedule", /*flow=*/s.failures.empty());
  for (const FailureEvent& f : s.failures) {
    w.BeginMap();
    w.Integer("replica", f.replica)
        .Number("at_s", f.at_s)
        .Number("recover_after_s", f.recover_after_s);
    w.EndMap();
  }
  w.EndList();
  w.EndMap();
  return w.Finish();
}

}  // namespace kvroute::sim
