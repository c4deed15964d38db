#include "sim/runner/scenario_printer.h"

#include <yaml-cpp/yaml.h>

#include <charconv>

#include "sim/runner/scenario_loader_internal.h"
#include "sim/runner/scenario_printer_internal.h"

namespace kvroute::sim {
namespace printer {

// The shortest text that reads back as exactly `value`.
YAML::Node Num(double value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  (void)ec;
  return YAML::Node(std::string(text, end));
}

YAML::Node Flow(YAML::Node node) {
  node.SetStyle(YAML::EmitterStyle::Flow);
  return node;
}

YAML::Node Policy(const PolicySpec& spec) {
  const policies::PolicyInfo& info = policies::FindPolicy(spec.name);
  const policies::Params params = policies::ResolveParams(info, spec.params);
  YAML::Node n;
  n["name"] = spec.name;
  if (spec.label != spec.name) n["label"] = spec.label;
  for (size_t i = 0; i < info.params.size(); ++i) {
    const policies::ParamSpec& p = info.params[i];
    const double value = params.values()[i];
    if (p.choices.empty()) {
      n[p.name] = Num(value);
    } else {
      n[p.name] = p.choices[static_cast<size_t>(value)];
    }
  }
  return Flow(n);
}

}  // namespace printer
namespace {

using namespace printer;
using scenario::LengthKinds;

YAML::Node Length(const models::LengthDistribution& d) {
  using Kind = models::LengthDistribution::Kind;
  if (d.kind == Kind::kFixed) return Num(d.value);
  YAML::Node n;
  n["kind"] = LengthKinds().NameOf(d.kind);
  switch (d.kind) {
    case Kind::kLognormal:
      n["median"] = Num(d.median);
      n["sigma"] = Num(d.sigma);
      break;
    case Kind::kNormal:
      n["mean"] = Num(d.mean);
      n["sd"] = Num(d.sd);
      break;
    case Kind::kExponential:
      n["mean"] = Num(d.mean);
      break;
    case Kind::kGamma:
      n["shape"] = Num(d.shape);
      n["scale"] = Num(d.scale);
      break;
    case Kind::kEmpirical: {
      // The resolved histogram: distinct values and their summed weights.
      YAML::Node values(YAML::NodeType::Sequence), weights(YAML::NodeType::Sequence);
      for (size_t i = 0; i < d.values.size(); ++i) {
        values.push_back(Num(d.values[i]));
        weights.push_back(Num(d.weights[i]));
      }
      n["values"] = Flow(values);
      n["weights"] = Flow(weights);
      return Flow(n);
    }
    default:
      break;
  }
  n["min"] = Num(d.min);
  n["max"] = Num(d.max);
  return Flow(n);
}

YAML::Node Trace(const models::TraceConfig& t) {
  YAML::Node n;
  n["format"] = models::TraceFormats().NameOf(t.format);
  n["file"] = t.file;
  n["loop"] = t.loop;
  n["skip"] = Num(static_cast<double>(t.skip));
  n["limit"] = Num(static_cast<double>(t.limit));
  n["key_blocks"] = Num(t.key_blocks);
  n["block_tokens"] = Num(t.block_tokens);
  n["timing"] = scenario::TraceTimings().NameOf(t.timing);
  if (t.closed_loop) n["pacing"] = scenario::SessionPacings().NameOf(true);
  return Flow(n);
}

YAML::Node RateSkew(const models::KeyRateConfig& r) {
  using Kind = models::KeyRateConfig::Kind;
  YAML::Node n;
  n["kind"] = scenario::RateSkewKinds().NameOf(r.kind);
  if (r.kind == Kind::kZipf) n["s"] = Num(r.zipf_s);
  if (r.kind == Kind::kLognormal) n["sigma"] = Num(r.sigma);
  if (r.kind == Kind::kGini) {
    n["target"] = Num(r.gini);
    n["max_share"] = Num(r.max_share);
  }
  return Flow(n);
}

YAML::Node Arrivals(const models::ArrivalConfig& a) {
  using Kind = models::ArrivalConfig::Kind;
  YAML::Node n;
  n["kind"] = scenario::ArrivalKinds().NameOf(a.kind);
  if (a.kind == Kind::kGamma) n["cv"] = Num(a.cv);
  if (a.kind == Kind::kBootstrap) {
    n["file"] = a.source;
    n["block"] = Num(a.block);
  }
  return Flow(n);
}

YAML::Node ClosedLoop(const models::ClosedLoopConfig& loop) {
  YAML::Node n;
  n["kind"] = scenario::ArrivalKinds().NameOf(models::ArrivalConfig::Kind::kClosedLoop);
  if (loop.clients > 0) n["clients"] = Num(loop.clients);
  n["think_time_s"] = Length(loop.think_time_s);
  n["max_requests"] = Num(static_cast<double>(loop.max_requests));
  n["ramp_s"] = Num(loop.ramp_s);
  return Flow(n);
}

YAML::Node InferencePerfLength(const models::InferencePerfLength& d) {
  if (d.fixed()) return Num(std::trunc(d.mean));
  YAML::Node n;
  n["type"] = scenario::InferencePerfDistributionTypes().NameOf(d.type);
  n["min"] = Num(d.min);
  n["max"] = Num(d.max);
  n["mean"] = Num(d.mean);
  n["std_dev"] = Num(d.std_dev);
  if (d.skew != 0) n["skew"] = Num(d.skew);
  return Flow(n);
}

YAML::Node Workload(const models::WorkloadConfig& c) {
  YAML::Node w;
  if (c.trace.format != models::TraceConfig::Format::kNone) {
    w["trace"] = Trace(c.trace);
    return w;
  }
  if (c.shared_prefix.groups > 0) {
    YAML::Node p;
    p["groups"] = Num(c.shared_prefix.groups);
    p["prompts_per_group"] = Num(c.shared_prefix.prompts_per_group);
    p["system_tokens"] = InferencePerfLength(c.shared_prefix.system_tokens);
    p["question_tokens"] = InferencePerfLength(c.shared_prefix.question_tokens);
    p["output_tokens"] = InferencePerfLength(c.shared_prefix.output_tokens);
    if (c.shared_prefix.multi_turn_chat) p["enable_multi_turn_chat"] = true;
    w["shared_prefix"] = Flow(p);
    w["arrivals"] = c.closed_loop.enabled ? ClosedLoop(c.closed_loop) : Arrivals(c.arrivals);
    return w;
  }
  if (c.clients.enabled()) {
    YAML::Node clients;
    clients["file"] = c.clients.file;
    clients["start_s"] = Num(c.clients.start_s);
    clients["aggregate"] = scenario::ClientAggregates().NameOf(c.clients.aggregate);
    clients["keys_per_client"] = Num(c.clients.keys_per_client);
    w["clients"] = Flow(clients);
  } else {
    w["keys"] = Num(c.keys);
    w["tenants"] = Num(c.tenants);
  }
  w["rate_skew"] = RateSkew(c.rates);
  w["active_keys"] = Num(c.rates.active_keys);
  if (!c.rates.whales.empty()) {
    YAML::Node whales(YAML::NodeType::Sequence);
    for (double share : c.rates.whales) whales.push_back(Num(share));
    w["whales"] = Flow(whales);
  }
  YAML::Node prompt;
  prompt["system_tokens"] = Num(c.system_tokens);
  prompt["new_tokens"] = Length(c.new_tokens);
  prompt["no_prefix_share"] = Num(c.no_prefix_share);
  if (c.rag.documents > 0) {
    YAML::Node rag;
    rag["documents"] = Num(c.rag.documents);
    rag["popularity_s"] = Num(c.rag.popularity_s);
    rag["chunks"] = Length(c.rag.chunks);
    rag["chunk_tokens"] = Num(c.rag.chunk_tokens);
    prompt["rag"] = Flow(rag);
  }
  w["prompt"] = prompt;
  w["output_tokens"] = Length(c.output_tokens);
  YAML::Node sessions;
  sessions["turns"] = Length(c.sessions.turns);
  sessions["think_time_s"] = Length(c.sessions.think_time_s);
  sessions["pacing"] = scenario::SessionPacings().NameOf(c.sessions.closed_loop);
  if (c.sessions.agent.tool_calls.MeanDraw() > 0) {
    YAML::Node agent;
    agent["tool_calls"] = Length(c.sessions.agent.tool_calls);
    agent["parallel_calls"] = Length(c.sessions.agent.parallel_calls);
    agent["tool_output_tokens"] = Length(c.sessions.agent.tool_output_tokens);
    agent["tool_latency_s"] = Length(c.sessions.agent.tool_latency_s);
    sessions["agent"] = Flow(agent);
  }
  w["sessions"] = Flow(sessions);
  if (c.clients.enabled()) return w;  // the clients' arrivals, without load schedule or drift
  w["arrivals"] = c.closed_loop.enabled ? ClosedLoop(c.closed_loop) : Arrivals(c.arrivals);
  if (!c.load_schedule.empty()) {
    YAML::Node steps(YAML::NodeType::Sequence);
    for (const models::LoadStep& step : c.load_schedule) {
      YAML::Node n;
      n["until_s"] = Num(step.until_s);
      n["factor"] = Num(step.factor);
      steps.push_back(Flow(n));
    }
    w["load_schedule"] = steps;
  }
  YAML::Node drift;
  drift["sigma"] = Num(c.drift.sigma);
  drift["interval_s"] = Num(c.drift.interval_s);
  w["drift"] = Flow(drift);
  return w;
}

YAML::Node Sweep(const Scenario& s) {
  YAML::Node n;
  if (s.workload.trace.timing != models::TraceConfig::Timing::kNative) {
    YAML::Node qps(YAML::NodeType::Sequence);
    for (double q : s.qps) qps.push_back(Num(q));
    n["qps"] = Flow(qps);
    n["reference_qps"] = Num(s.reference_qps);
    n["precision_qps"] = Num(s.precision_qps);
    if (s.precision_share > 0) n["precision_share"] = Num(s.precision_share);
  }
  n["baseline"] = s.baseline;
  return n;
}

}  // namespace

std::string ResolvedScenarioYaml(const Scenario& s) {
  YAML::Node root;
  root["name"] = s.name;
  root["seed"] = Num(static_cast<double>(s.seed));
  root["seeds"] = Num(s.seeds);
  root["duration_s"] = Num(s.duration_s);
  root["warmup_s"] = Num(s.warmup_s);
  root["drain_s"] = Num(s.drain_s);
  root["cluster"] = Cluster(s);
  root["workload"] = Workload(s.workload);
  YAML::Node policies(YAML::NodeType::Sequence);
  for (const PolicySpec& p : s.policies) policies.push_back(Policy(p));
  root["policies"] = policies;
  root["sweep"] = Sweep(s);
  YAML::Node slos(YAML::NodeType::Sequence);
  for (const analysis::Slo& slo : s.slos) {
    YAML::Node n;
    n["metric"] = scenario::SloMetrics().NameOf(slo.metric);
    n["percentile"] = Num(slo.percentile);
    n["threshold_s"] = Num(slo.threshold_s);
    slos.push_back(Flow(n));
  }
  root["slo"] = slos;
  YAML::Node failures;
  failures["retry_limit"] = Num(s.retry_limit);
  YAML::Node schedule(YAML::NodeType::Sequence);
  for (const FailureEvent& f : s.failures) {
    YAML::Node n;
    n["replica"] = Num(f.replica);
    n["at_s"] = Num(f.at_s);
    n["recover_after_s"] = Num(f.recover_after_s);
    schedule.push_back(Flow(n));
  }
  failures["schedule"] = Flow(schedule);
  root["failures"] = failures;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace kvroute::sim
