// Length distributions (token counts, turns, think times): a number, or a map
// {kind: fixed|uniform|lognormal, ...} (models/length_distribution.h).
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

constexpr double kMaxLength = 1e7;

}  // namespace

const ChoiceTable<models::LengthDistribution::Kind>& LengthKinds() {
  using Kind = models::LengthDistribution::Kind;
  static const ChoiceTable<Kind> table(
      "distribution",
      {{"fixed", Kind::kFixed}, {"uniform", Kind::kUniform}, {"lognormal", Kind::kLognormal}});
  return table;
}

const YamlKeyTable& LengthKeys() {
  static const YamlKeyTable table{
      "(a length distribution)",
      {ChoiceKey("kind", LengthKinds().names(), "", "the family").Required(),
       NumberKey("value", 0, 0, kMaxLength, "the value").Required().When("kind: fixed"),
       NumberKey("min", 0, 0, kMaxLength, "lower bound (uniform: inclusive; lognormal: clamp)")
           .When("kind: uniform or lognormal"),
       NumberKey("max", 0, 0, kMaxLength,
                 "upper bound (uniform: inclusive, default min; lognormal: clamp, 0 = none)")
           .When("kind: uniform or lognormal"),
       NumberKey("median", 0, 1e-9, kMaxLength, "exp(mu)").Required().When("kind: lognormal"),
       NumberKey("sigma", 0, 0, 10, "standard deviation of the log").When("kind: lognormal")}};
  return table;
}

models::LengthDistribution ParseLength(const YamlMap& parent, const YAML::Node& node,
                                       const std::string& path) {
  using Kind = models::LengthDistribution::Kind;
  if (node.IsScalar()) {
    double value = 0;
    if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value) || value < 0 ||
        value > kMaxLength) {
      parent.FailAt(node, path,
                    "expected a count in [0, " + FormatYamlNumber(kMaxLength) +
                        "] or a distribution map {kind: fixed|uniform|lognormal, ...}");
    }
    return models::LengthDistribution::Fixed(value);
  }
  YamlMap map(parent.shared_source(), node, path, &LengthKeys());
  models::LengthDistribution d;
  d.kind = map.Choice("kind", LengthKinds());
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
      d.min = map.Number("min");
      d.max = map.Number("max");
      if (d.max > 0 && d.max < d.min) map.Fail("max", "must be >= min (or 0: no upper clamp)");
      break;
  }
  map.Finish();
  return d;
}

}  // namespace kvroute::sim::scenario
