#include "models/calibration.h"

#include <cmath>

#include "models/cost_model.h"
#include "sim/core/yaml_map.h"

namespace kvroute::models {
namespace {

CalibrationPoint ParsePoint(sim::YamlMap map, bool held) {
  using Kind = CalibrationPoint::Kind;
  CalibrationPoint p;
  p.held = held;
  std::string kind = map.String("kind", "");
  if (kind == "linear")
    p.kind = Kind::kLinear;
  else if (kind == "prefill")
    p.kind = Kind::kPrefill;
  else if (kind == "decode")
    p.kind = Kind::kDecode;
  else if (kind == "decode_range")
    p.kind = Kind::kDecodeRange;
  else
    map.Fail("kind", "unknown calibration kind '" + kind +
                         "' (valid: linear, prefill, decode, decode_range)");
  p.tensor_parallel = static_cast<int>(map.Integer("tensor_parallel", 0, 1, 64));
  p.source = map.String("source", "");
  if (p.source.empty()) map.Fail("source", "every calibration point must cite its source");
  switch (p.kind) {
    case Kind::kLinear:
      p.tokens = static_cast<int>(map.Integer("tokens", 0, 1, 1 << 24));
      p.ms = map.RequiredNumber("ms", 1e-9);
      break;
    case Kind::kPrefill:
      p.new_tokens = static_cast<int>(map.Integer("new_tokens", 0, 1, 1 << 24));
      p.context_tokens =
          static_cast<int>(map.Integer("context_tokens", p.new_tokens, p.new_tokens, 1 << 24));
      p.ms = map.RequiredNumber("ms", 1e-9);
      break;
    case Kind::kDecode:
    case Kind::kDecodeRange:
      p.batch = static_cast<int>(map.Integer("batch", 0, 1, 1 << 20));
      p.context_tokens = static_cast<int>(map.Integer("context_tokens", 0, 1, 1 << 24));
      if (p.kind == Kind::kDecode) {
        p.ms = map.RequiredNumber("ms", 1e-9);
      } else {
        p.min_ms = map.RequiredNumber("min_ms", 1e-9);
        p.max_ms = map.RequiredNumber("max_ms", p.min_ms);
      }
      break;
  }
  map.Finish();
  return p;
}
std::vector<CalibrationPoint> ParsePoints(const std::string& source, const YAML::Node& list,
                                          const std::string& path, bool held) {
  std::vector<CalibrationPoint> points;
  if (!list.IsDefined()) return points;
  if (!list.IsSequence()) sim::FailAt(source, list, path, "expected a list");
  for (size_t i = 0; i < list.size(); ++i) {
    points.push_back(
        ParsePoint(sim::YamlMap(source, list[i], path + "[" + std::to_string(i) + "]"), held));
  }
  return points;
}

}  // namespace

std::string CalibrationPoint::Describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kLinear:
      out << "linear layers, " << tokens << " tokens";
      break;
    case Kind::kPrefill:
      out << "prefill " << new_tokens << " tokens";
      if (context_tokens != new_tokens) out << " at context " << context_tokens;
      break;
    case Kind::kDecode:
    case Kind::kDecodeRange:
      out << "decode batch " << batch << " at context " << context_tokens;
      break;
  }
  if (tensor_parallel > 0) out << ", TP" << tensor_parallel;
  return out.str();
}

void ParseCalibration(sim::YamlMap c, Profile* p) {
  p->calibration_tolerance = c.Number("tolerance", 0.15, 0, 0.25);
  p->calibration = ParsePoints(c.source(), c.Take("points"), c.Child("points"), true);
  for (CalibrationPoint& x :
       ParsePoints(c.source(), c.Take("excluded"), c.Child("excluded"), false)) {
    p->calibration.push_back(x);
  }
  c.Finish();
}

std::vector<CalibrationResult> EvaluateCalibration(const Profile& profile) {
  std::vector<CalibrationResult> results;
  for (const CalibrationPoint& point : profile.calibration) {
    // Points measured at another TP degree evaluate the same model there.
    Profile at = profile;
    if (point.tensor_parallel > 0) at.tensor_parallel = point.tensor_parallel;
    PhysicalCostModel model(at);
    CalibrationResult r{.point = point};
    BatchShape batch;
    switch (point.kind) {
      case CalibrationPoint::Kind::kLinear:
        r.model_ms = model.LinearSeconds(point.tokens) * 1e3;
        break;
      case CalibrationPoint::Kind::kPrefill:
        batch.AddPrefillChunk(point.context_tokens - point.new_tokens, point.new_tokens);
        r.model_ms = sim::ToSeconds(model.IterationTime(batch)) * 1e3;
        break;
      case CalibrationPoint::Kind::kDecode:
      case CalibrationPoint::Kind::kDecodeRange:
        for (int i = 0; i < point.batch; ++i) batch.AddDecode(point.context_tokens);
        r.model_ms = sim::ToSeconds(model.IterationTime(batch)) * 1e3;
        break;
    }
    if (point.kind == CalibrationPoint::Kind::kDecodeRange) {
      if (r.model_ms < point.min_ms) r.error = (r.model_ms - point.min_ms) / point.min_ms;
      if (r.model_ms > point.max_ms) r.error = (r.model_ms - point.max_ms) / point.max_ms;
    } else {
      r.error = (r.model_ms - point.ms) / point.ms;
    }
    r.within = std::abs(r.error) <= profile.calibration_tolerance;
    results.push_back(r);
  }
  return results;
}

}  // namespace kvroute::models
