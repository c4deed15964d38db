// Checks a point read back from outside the process that simulated it (a
// partial file on --resume, a result sent by an MPI rank, a results file for
// `kvroute report`) before anything uses it: every field in its range (the
// field tables), the per-SLO and per-replica lists of the right length, counts
// that conserve (completed + unfinished + rejected + failed <= offered, ...),
// and, against the scenario, magnitudes a run of it could produce. A point that
// fails is refused with a message naming the field, never used.
#ifndef KVROUTE_ANALYSIS_POINT_CHECK_H_
#define KVROUTE_ANALYSIS_POINT_CHECK_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/point_metrics.h"

namespace kvroute::analysis {

class PointCheckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the point must look like. Zero or empty members are not checked.
struct PointExpectations {
  size_t slos = 0;                    // SLO values (always checked: a point has at least one)
  size_t replicas = 0;                // entries of replica_requests
  std::vector<std::string> policies;  // the labels a point may have
  size_t deployments = 0;             // > 1: deployment names and series expected
  double duration_s = 0;              // arrivals stop here; bounds the counts
  double drain_s = 0;
  double series_interval_s = 0;  // bounds the number of buckets
};

// Throws PointCheckError with what is wrong.
void CheckPoint(const PointResult& point, const PointExpectations& expected);

// "policy flat_lb, 40 QPS, seed 2": names a point in messages.
std::string DescribePoint(const PointResult& point);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_POINT_CHECK_H_
