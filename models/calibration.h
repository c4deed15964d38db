// Evaluates a profile against its calibration points: what the cost model
// predicts for each published measurement, and the relative error. Tests hold
// the held points within the profile's tolerance; `kvroute profiles` prints the
// table the documentation shows.
#ifndef KVROUTE_MODELS_CALIBRATION_H_
#define KVROUTE_MODELS_CALIBRATION_H_

#include <vector>

#include "models/profile.h"
#include "sim/core/yaml_map.h"

namespace kvroute::models {

struct CalibrationResult {
  CalibrationPoint point;
  double model_ms = 0;
  // (model − published) / published; for a range, the distance outside it
  // relative to the nearer end (0 inside).
  double error = 0;
  bool within = false;  // |error| <= the profile's tolerance
};

std::vector<CalibrationResult> EvaluateCalibration(const Profile& profile);

// Reads a profile's `calibration` map: tolerance, held `points` and
// `excluded` ones, each citing its source.
void ParseCalibration(sim::YamlMap map, Profile* profile);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_CALIBRATION_H_
