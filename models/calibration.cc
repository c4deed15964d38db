#include "models/calibration.h"

#include <cmath>

#include "models/cost_model.h"

namespace kvroute::models {

std::vector<CalibrationResult> EvaluateCalibration(const Profile& profile) {
  std::vector<CalibrationResult> results;
  for (const CalibrationPoint& point : profile.calibration) {
    // Points measured at another TP degree evaluate the same model there.
    Profile at = profile;
    if (point.tensor_parallel > 0) at.tensor_parallel = point.tensor_parallel;
    RooflineCostModel model(at);
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
