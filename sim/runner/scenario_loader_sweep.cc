// What is measured: the load grid and its refinement (`sweep`) and the SLOs
// capacities are found against (`slo`).
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

void ParseLoadGrid(YamlMap& sweep, Scenario* s) {
  YAML::Node qps = sweep.Required("qps");
  if (!qps.IsSequence() || qps.size() == 0) {
    sweep.Fail("qps", "expected a non-empty list of loads");
  }
  for (size_t i = 0; i < qps.size(); ++i) {
    const std::string path = sweep.Child("qps") + "[" + std::to_string(i) + "]";
    double value = 0;
    if (!qps[i].IsScalar() || !YAML::convert<double>::decode(qps[i], value) || !(value > 0) ||
        !std::isfinite(value)) {
      sweep.FailAt(qps[i], path, "expected a positive number");
    }
    if (!s->qps.empty() && value <= s->qps.back()) {
      sweep.FailAt(qps[i], path, "loads must be strictly increasing");
    }
    s->qps.push_back(value);
  }
  s->reference_qps = sweep.Number("reference_qps", s->qps[s->qps.size() / 2], 1e-9);
  if (std::find(s->qps.begin(), s->qps.end(), s->reference_qps) == s->qps.end()) {
    sweep.Fail("reference_qps", "must be one of the loads in sweep.qps");
  }
  s->precision_qps = sweep.Number("precision_qps");
  s->precision_share = sweep.Number("precision_share");
}

}  // namespace

const ChoiceTable<analysis::LatencyMetric>& SloMetrics() {
  using M = analysis::LatencyMetric;
  static const ChoiceTable<M> table("metric",
                                    {{"ttft", M::kTtft}, {"tpot", M::kTpot}, {"e2e", M::kE2e}});
  return table;
}

const YamlKeyTable& SweepKeys() {
  static const Scenario d;
  static const YamlKeyTable table{
      "sweep",
      {NestedKey("qps", YamlType::kList, "", "the load grid, strictly increasing").Required(),
       NumberKey("reference_qps", 0, 1e-9, INFINITY,
                 "a load of the grid where tables compare hit rates and latencies")
           .Default("the middle of the grid"),
       NumberKey("precision_qps", d.precision_qps, 0, INFINITY,
                 "bisect each capacity until brackets are this narrow; 0: the grid only"),
       NumberKey("precision_share", d.precision_share, 0, 1,
                 "or until they are this share of their lower end, whichever is wider "
                 "(0.02: within 2%); 0: precision_qps alone"),
       StringKey("baseline", d.baseline,
                 "a policy label; capacities are also given as a ratio to its, by seed")}};
  return table;
}

const YamlKeyTable& SloKeys() {
  static const analysis::Slo d;
  static const YamlKeyTable table{
      "slo[]",
      {ChoiceKey("metric", SloMetrics().names(), analysis::MetricName(d.metric),
                 "the latency measured"),
       NumberKey("percentile", d.percentile, 1e-9, 100, "which percentile must meet it"),
       NumberKey("threshold_s", d.threshold_s, 1e-9, INFINITY, "seconds").Required()}};
  return table;
}

void ParseSweep(YamlMap& top, Scenario* s, double native_qps) {
  if (native_qps > 0) {
    s->qps = {native_qps};
    s->reference_qps = native_qps;
  }
  YAML::Node node = native_qps > 0 ? top.Take("sweep") : top.Required("sweep");
  if (!node.IsDefined()) return;
  YamlMap sweep = top.Map("sweep", &SweepKeys());
  if (native_qps > 0) {
    std::ostringstream msg;
    msg << std::setprecision(12) << "workload.trace.timing is native: the trace is replayed at "
        << "its own rate, " << native_qps << " QPS, the only load; remove this key, or set "
        << "timing: scaled to sweep loads";
    for (const char* key : {"qps", "reference_qps", "precision_qps", "precision_share"}) {
      if (sweep.Take(key).IsDefined()) sweep.Fail(key, msg.str());
    }
  } else {
    ParseLoadGrid(sweep, s);
  }
  s->baseline = sweep.String("baseline");
  if (!s->baseline.empty() &&
      std::none_of(s->policies.begin(), s->policies.end(),
                   [&](const PolicySpec& p) { return p.label == s->baseline; })) {
    std::vector<std::string> labels;
    for (const PolicySpec& p : s->policies) labels.push_back(p.label);
    sweep.Fail("baseline", "'" + s->baseline + "' is not one of the policies (" +
                               JoinNames(labels) + DidYouMean(s->baseline, labels) + ")");
  }
  sweep.Finish();
}

void ParseSlos(YamlMap& top, Scenario* s) {
  YAML::Node list = top.Required("slo");
  if (!list.IsSequence() || list.size() == 0) {
    top.Fail("slo", "expected a non-empty list of {metric, percentile, threshold_s}");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    YamlMap m(top.shared_source(), list[i], "slo[" + std::to_string(i) + "]", &SloKeys());
    analysis::Slo slo;
    slo.metric = m.Choice("metric", SloMetrics());
    slo.percentile = m.Number("percentile");
    slo.threshold_s = m.Number("threshold_s");
    m.Finish();
    s->slos.push_back(slo);
  }
}

}  // namespace kvroute::sim::scenario
