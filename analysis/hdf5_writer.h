// Writes a sweep's results to HDF5 (DESIGN.md, "Output"; docs/OUTPUT.md has
// the full layout, generated from the field tables):
//   root attributes    layout_version, baseline
//   /provenance        attributes kvroute_version, git_revision, created_utc,
//                      working_directory, scenario_hash; text datasets
//                      command_line, scenario_yaml, resolved_scenario_yaml
//   /points            one row per (policy, load, seed), every metric
//   /replica_requests  points × replicas, requests dispatched after warm-up
//   /tenants           one row per (point, tracked tenant or "other")
//   /timeseries        one row per (point, bucket of series_interval_s)
//   /deployment_series one row per (point, bucket, deployment), several deployments only
//   /capacity          one row per (policy, seed, SLO)
//   /summary           one row per (policy, SLO)
//   /slos              one row per SLO: index, metric, percentile, threshold
// The file is built in memory, then written atomically (atomic_file.h) and
// verified by reading it back: on any failure the file that was at the path
// before is still there.
#ifndef KVROUTE_ANALYSIS_HDF5_WRITER_H_
#define KVROUTE_ANALYSIS_HDF5_WRITER_H_

#include <string>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {

// The current layout; the reader refuses others with a clear message.
inline constexpr char kResultsLayoutVersion[] = "2";

// Where a results file came from: enough to run it again.
struct Provenance {
  std::string kvroute_version;
  std::string git_revision;       // of the source kvroute was built from
  std::string command_line;       // shell-quoted, replayable from working_directory
  std::string working_directory;  // where the command ran
  std::string created_utc;
  std::string scenario_hash;           // identifies the scenario as run (what --resume checks)
  std::string scenario_yaml;           // the scenario as given, --set and --seeds applied
  std::string resolved_scenario_yaml;  // the same with every default filled in
};

// The file's bytes, as WriteResultsHdf5 writes them.
std::string ResultsHdf5Image(const Provenance& provenance, const SweepResults& results);

// Throws OutputFileError (atomic_file.h) naming the path and the cause; the
// file at `path` before the call is then unchanged.
void WriteResultsHdf5(const std::string& path, const Provenance& provenance,
                      const SweepResults& results);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_WRITER_H_
