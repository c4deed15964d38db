// When requests arrive: the unit-rate arrival process (workload.arrivals), the
// load schedule that warps it over time, and the drift of the keys' rates.
#include "models/arrival_process.h"
#include "sim/core/input_file.h"
#include "sim/core/time.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

// Measured gaps from a gaps file (one per line) or a trace's timestamps.
std::vector<double> ReadGaps(const std::string& path) {
  models::TraceConfig::Format format = models::GuessTraceFormat(path);
  if (format == models::TraceConfig::Format::kNone) {
    CheckInputFile(path, kGapsInput);
    return models::ReadGapsFile(path);
  }
  models::Trace trace = models::ReadTrace({.format = format, .file = path});
  std::vector<double> gaps;
  for (size_t i = 1; i < trace.records.size(); ++i) {
    gaps.push_back(ToSeconds(trace.records[i].time_ns - trace.records[i - 1].time_ns));
  }
  return gaps;
}

}  // namespace

const ChoiceTable<models::ArrivalConfig::Kind>& ArrivalKinds() {
  using Kind = models::ArrivalConfig::Kind;
  static const ChoiceTable<Kind> table("arrival process", {{"poisson", Kind::kPoisson},
                                                           {"gamma", Kind::kGamma},
                                                           {"bootstrap", Kind::kBootstrap},
                                                           {"closed_loop", Kind::kClosedLoop}});
  return table;
}

const YamlKeyTable& ArrivalKeys() {
  static const models::ArrivalConfig d;
  static const YamlKeyTable table{
      "workload.arrivals",
      {ChoiceKey("kind", ArrivalKinds().names(), ArrivalKinds().NameOf(d.kind),
                 "the unit-rate process of session starts, or closed-loop clients"),
       NumberKey("cv", d.cv, 0.01, 20, "coefficient of variation of the gaps (seed 003 §5.6: 1.9)")
           .When("kind: gamma"),
       StringKey("file", "",
                 "measured gaps, one per line, or a .jsonl/.csv trace whose timestamps give them")
           .Required()
           .When("kind: bootstrap"),
       IntegerKey("block", d.block, 1, 1'000'000, "block length of the moving-block bootstrap")
           .When("kind: bootstrap"),
       IntegerKey("clients", 0, 1, 1'000'000,
                  "clients, each with one request in flight; the sweep's loads count clients "
                  "when not given")
           .Default("the point's load")
           .When("kind: closed_loop"),
       NestedKey("think_time_s", YamlType::kLength, "0",
                 "between a client's response and its next request, s")
           .When("kind: closed_loop"),
       IntegerKey("max_requests", 0, 0, 1e15, "all clients together; 0: until duration_s")
           .When("kind: closed_loop"),
       NumberKey("ramp_s", 0, 0, 1e7, "first requests evenly spread over this long; 0: a burst")
           .When("kind: closed_loop")}};
  return table;
}

const YamlKeyTable& LoadStepKeys() {
  static const models::LoadStep d;
  static const YamlKeyTable table{
      "workload.load_schedule[]",
      {NumberKey("until_s", d.until_s, 1e-9, 1e7, "this step ends here, s; strictly increasing")
           .Required(),
       NumberKey("factor", d.factor, 1e-6, 1e6, "load multiplier during the step")}};
  return table;
}

const YamlKeyTable& DriftKeys() {
  static const models::DriftConfig d;
  static const YamlKeyTable table{
      "workload.drift",
      {NumberKey("sigma", d.sigma, 0, 10, "std of each key's log-rate step (seed 003 §5.6: 0.3)")
           .Required(),
       NumberKey("interval_s", d.interval_s, 1e-3, 1e7, "seconds between steps")}};
  return table;
}

void ParseArrivals(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  if (!w.Take("arrivals").IsDefined()) return;
  YamlMap m = w.Map("arrivals", &ArrivalKeys());
  models::ArrivalConfig& a = c->arrivals;
  a.kind = m.Choice("kind", ArrivalKinds());
  if (a.kind == models::ArrivalConfig::Kind::kGamma) a.cv = m.Number("cv");
  if (a.kind == models::ArrivalConfig::Kind::kClosedLoop) {
    models::ClosedLoopConfig& loop = c->closed_loop;
    loop.enabled = true;
    loop.clients = static_cast<uint32_t>(m.Integer("clients"));
    if (YAML::Node think = m.Take("think_time_s"); think.IsDefined()) {
      loop.think_time_s = ParseLength(m, think, m.Child("think_time_s"), ctx);
    }
    loop.max_requests = m.Integer("max_requests");
    loop.ramp_s = m.Number("ramp_s");
  }
  if (a.kind == models::ArrivalConfig::Kind::kBootstrap) {
    a.source = ResolvePath(m, "file", m.String("file"), ctx.base_dir);
    a.block = static_cast<uint32_t>(m.Integer("block"));
    try {
      a.gaps = ReadGaps(a.source);
    } catch (const std::runtime_error& e) {
      m.Fail("file", e.what());
    }
    double total = 0;
    for (double g : a.gaps) total += g;
    if (a.gaps.size() < a.block || !(total > 0)) {
      m.Fail("file", "needs at least `block` (" + std::to_string(a.block) +
                         ") gaps with a positive mean, has " + std::to_string(a.gaps.size()));
    }
  }
  m.Finish();
}

void ParseLoadSchedule(YamlMap& w, models::WorkloadConfig* c) {
  YAML::Node list = w.Take("load_schedule");
  if (!list.IsDefined()) return;
  if (!list.IsSequence() || list.size() == 0) {
    w.Fail("load_schedule", "expected a non-empty list of {until_s, factor}");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    YamlMap m(w.shared_source(), list[i], w.Child("load_schedule") + "[" + std::to_string(i) + "]",
              &LoadStepKeys());
    models::LoadStep step{m.Number("until_s"), m.Number("factor")};
    m.Finish();
    if (!c->load_schedule.empty() && step.until_s <= c->load_schedule.back().until_s) {
      m.Fail("until_s", "steps must end at strictly increasing times");
    }
    c->load_schedule.push_back(step);
  }
}

void ParseDrift(YamlMap& w, models::WorkloadConfig* c) {
  if (!w.Take("drift").IsDefined()) return;
  YamlMap m = w.Map("drift", &DriftKeys());
  c->drift.sigma = m.Number("sigma");
  c->drift.interval_s = m.Number("interval_s");
  m.Finish();
}

}  // namespace kvroute::sim::scenario
