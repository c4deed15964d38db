// Writes a sweep's results to HDF5 (DESIGN.md, "Output"). Layout:
//   root attributes: kvroute_version, scenario_yaml, command_line, created_utc,
//                    scenario_hash, baseline
//   /points            one row per (policy, load, seed), every metric
//   /replica_requests  points × replicas, requests dispatched after warm-up
//   /tenants           one row per (point, tracked tenant or "other")
//   /timeseries        one row per (point, bucket of series_interval_s)
//   /deployment_series one row per (point, bucket, deployment), several deployments only
//   /capacity          one row per (policy, seed, SLO)
//   /summary           one row per (policy, SLO)
//   /slos              one row per SLO: index, metric, percentile, threshold
// The file is written under a temporary name and renamed when complete, so an
// interrupted run leaves no half-written file behind.
#ifndef KVROUTE_ANALYSIS_HDF5_WRITER_H_
#define KVROUTE_ANALYSIS_HDF5_WRITER_H_

#include <string>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {

struct FileAttributes {
  std::string kvroute_version;
  std::string scenario_yaml;
  std::string command_line;
  std::string created_utc;
  std::string scenario_hash;  // identifies the scenario as run (what --resume checks)
};

// Throws std::runtime_error naming the path on failure; nothing is left at `path`.
void WriteResultsHdf5(const std::string& path, const FileAttributes& attributes,
                      const SweepResults& results);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_WRITER_H_
