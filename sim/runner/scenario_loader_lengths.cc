// Length distributions (token counts, turns, think times, tool latencies): a
// number, or a map {kind: fixed|uniform|lognormal|normal|exponential|gamma|
// empirical, ...} (models/length_distribution.h).
#include "models/number_column.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kMaxLength = 1e7;
constexpr size_t kMaxEmpiricalValues = 10'000'000;

// `values` (and `weights`) written inline: a histogram of distinct values.
models::LengthDistribution InlineEmpirical(YamlMap& map) {
  YAML::Node values = map.Take("values");
  YAML::Node weights = map.Take("weights");
  auto numbers = [&](const YAML::Node& list, const char* key, double min) {
    if (!list.IsSequence() || list.size() == 0)
      map.Fail(key, "expected a non-empty list of numbers");
    std::vector<double> out;
    for (size_t i = 0; i < list.size(); ++i) {
      double v = 0;
      if (!list[i].IsScalar() || !YAML::convert<double>::decode(list[i], v) || !std::isfinite(v) ||
          v < min || v > kMaxLength) {
        map.FailAt(list[i], map.Child(key) + "[" + std::to_string(i) + "]",
                   "expected a number in [" + FormatYamlNumber(min) + ", " +
                       FormatYamlNumber(kMaxLength) + "]");
      }
      out.push_back(v);
    }
    return out;
  };
  const std::vector<double> v = numbers(values, "values", 0);
  std::vector<double> w(v.size(), 1.0);
  if (weights.IsDefined()) {
    w = numbers(weights, "weights", 0);
    if (w.size() != v.size()) {
      map.Fail("weights", "expected one weight per value (" + std::to_string(v.size()) + ")");
    }
    double total = 0;
    for (double x : w) total += x;
    if (!(total > 0)) map.Fail("weights", "the weights must not all be 0");
  }
  return models::LengthDistribution::Empirical(v, w, map.Where(values, map.Child("values")));
}

models::LengthDistribution FileEmpirical(YamlMap& map, const LoadContext& ctx) {
  const std::string path = ResolvePath(map, "file", map.String("file"), ctx.base_dir);
  const std::string column = map.String("column");
  std::vector<double> v;
  try {
    v = models::ReadNumberColumn(path, column);
  } catch (const std::runtime_error& e) {
    map.Fail("file", e.what());
  }
  if (v.size() > kMaxEmpiricalValues) {
    map.Fail("file", "more than " + std::to_string(kMaxEmpiricalValues) + " values");
  }
  for (double x : v) {
    if (x > kMaxLength) map.Fail("file", "a value above " + FormatYamlNumber(kMaxLength));
  }
  return models::LengthDistribution::Empirical(v, std::vector<double>(v.size(), 1.0),
                                               path + (column.empty() ? "" : ":" + column));
}

}  // namespace

const ChoiceTable<models::LengthDistribution::Kind>& LengthKinds() {
  using Kind = models::LengthDistribution::Kind;
  static const ChoiceTable<Kind> table("distribution", {{"fixed", Kind::kFixed},
                                                        {"uniform", Kind::kUniform},
                                                        {"lognormal", Kind::kLognormal},
                                                        {"normal", Kind::kNormal},
                                                        {"exponential", Kind::kExponential},
                                                        {"gamma", Kind::kGamma},
                                                        {"empirical", Kind::kEmpirical}});
  return table;
}

const YamlKeyTable& LengthKeys() {
  static const YamlKeyTable table{
      "(a length distribution)",
      {ChoiceKey("kind", LengthKinds().names(), "", "the family").Required(),
       NumberKey("value", 0, 0, kMaxLength, "the value").Required().When("kind: fixed"),
       NumberKey("min", 0, 0, kMaxLength,
                 "lower bound (uniform: inclusive; normal: truncation; others: clamp)")
           .When("kind: uniform, lognormal, normal, exponential or gamma"),
       NumberKey("max", 0, 0, kMaxLength,
                 "upper bound (uniform: inclusive, default min; normal: truncation, 0 = none; "
                 "others: clamp, 0 = none)")
           .When("kind: uniform, lognormal, normal, exponential or gamma"),
       NumberKey("median", 0, 1e-9, kMaxLength, "exp(mu)").Required().When("kind: lognormal"),
       NumberKey("sigma", 0, 0, 10, "standard deviation of the log").When("kind: lognormal"),
       NumberKey("mean", 0, 0, kMaxLength, "mean (normal: before truncation)")
           .Required()
           .When("kind: normal or exponential"),
       NumberKey("sd", 0, 0, kMaxLength, "standard deviation before truncation")
           .Required()
           .When("kind: normal"),
       NumberKey("shape", 0, 1e-3, 1e4, "k; mean k x scale, cv 1/sqrt(k)")
           .Required()
           .When("kind: gamma"),
       NumberKey("scale", 0, 1e-9, kMaxLength, "theta").Required().When("kind: gamma"),
       NestedKey("values", YamlType::kList, "", "the values of a histogram (or give file)")
           .When("kind: empirical"),
       NestedKey("weights", YamlType::kList, "all 1", "one weight per value")
           .When("kind: empirical"),
       StringKey("file", "",
                 "a CSV (with header), JSONL or one-number-per-line file whose numbers are "
                 "drawn from, relative to the scenario")
           .When("kind: empirical"),
       StringKey("column", "", "the CSV column or JSONL field; empty: one number per line")
           .When("kind: empirical, file")}};
  return table;
}

models::LengthDistribution ParseLength(const YamlMap& parent, const YAML::Node& node,
                                       const std::string& path, const LoadContext& ctx) {
  using Kind = models::LengthDistribution::Kind;
  if (node.IsScalar()) {
    double value = 0;
    if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value) || value < 0 ||
        value > kMaxLength) {
      parent.FailAt(node, path,
                    "expected a count in [0, " + FormatYamlNumber(kMaxLength) +
                        "] or a distribution map {kind: " + JoinNames(LengthKinds().names()) +
                        ", ...}");
    }
    return models::LengthDistribution::Fixed(value);
  }
  YamlMap map(parent.shared_source(), node, path, &LengthKeys());
  models::LengthDistribution d;
  d.kind = map.Choice("kind", LengthKinds());
  auto bounds = [&] {
    d.min = map.Number("min");
    d.max = map.Number("max");
    if (d.max > 0 && d.max < d.min) map.Fail("max", "must be >= min (or 0: no upper bound)");
  };
  switch (d.kind) {
    case Kind::kFixed:
      map.Required("value");
      d.value = map.Number("value");
      break;
    case Kind::kUniform:
      d.min = map.Number("min");
      d.max = map.Number("max", d.min, d.min, kMaxLength);
      break;
    case Kind::kLognormal:
      map.Required("median");
      d.median = map.Number("median");
      d.sigma = map.Number("sigma");
      bounds();
      break;
    case Kind::kNormal:
      map.Required("mean");
      map.Required("sd");
      d.mean = map.Number("mean");
      d.sd = map.Number("sd");
      bounds();
      if (d.sd > 0 && d.max > 0 && (d.max - d.mean) / d.sd < -30) {
        map.Fail("max", "the truncation leaves no probability (max far below the mean)");
      }
      if (d.sd > 0 && (d.min - d.mean) / d.sd > 30) {
        map.Fail("min", "the truncation leaves no probability (min far above the mean)");
      }
      break;
    case Kind::kExponential:
      map.Required("mean");
      d.mean = map.Number("mean");
      bounds();
      break;
    case Kind::kGamma:
      map.Required("shape");
      map.Required("scale");
      d.shape = map.Number("shape");
      d.scale = map.Number("scale");
      bounds();
      break;
    case Kind::kEmpirical: {
      const bool inline_values = map.node()["values"].IsDefined();
      const bool file = map.node()["file"].IsDefined();
      if (inline_values == file) {
        map.Fail(file ? "file" : "kind", "give either values (a histogram) or file, not both");
      }
      if (!file && map.node()["column"].IsDefined()) map.Fail("column", "needs file");
      d = inline_values ? InlineEmpirical(map) : FileEmpirical(map, ctx);
      break;
    }
  }
  map.Finish();
  return d;
}

}  // namespace kvroute::sim::scenario
