// Progress of a sweep on stderr: a bar with the points done and an ETA,
// redrawn in place, when stderr is a terminal; otherwise one plain line per
// finished point, which reads well in a log file or a batch job's output.
#ifndef KVROUTE_SIM_RUNNER_PROGRESS_H_
#define KVROUTE_SIM_RUNNER_PROGRESS_H_

#include <spdlog/logger.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "analysis/point_metrics.h"

namespace kvroute::sim {

class Progress {
 public:
  // `slo_label` names the metric printed per point (the first SLO's).
  Progress(std::ostream& err, bool terminal, std::string slo_label);

  // (points done, points known so far, the point that finished)
  void OnPoint(size_t done, size_t known, const analysis::PointResult& point);
  // Ends the bar's line; nothing for plain lines.
  void Finish();

 private:
  std::ostream& err_;
  bool terminal_;
  std::string slo_label_;
  std::shared_ptr<spdlog::logger> lines_;
  std::chrono::steady_clock::time_point start_;
  size_t first_done_ = 0;  // points done when the first OnPoint came (resumed ones)
  bool drawn_ = false;
};

// "1h02m", "3m05s", "42s"
std::string FormatDuration(double seconds);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PROGRESS_H_
