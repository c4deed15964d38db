// What `kvroute run` writes besides its tables, and the checks around it: the
// provenance stored with the results (a replayable command line, the kvroute
// version and revision, the scenario as given and resolved), the checks every
// point read back from a partial file or an MPI rank must pass, and the final
// write, which on failure says what survives.
#ifndef KVROUTE_SIM_RUNNER_EXPERIMENT_OUTPUT_H_
#define KVROUTE_SIM_RUNNER_EXPERIMENT_OUTPUT_H_

#include <string>

#include "analysis/hdf5_writer.h"
#include "analysis/point_check.h"
#include "analysis/sweep_results.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim {

// `argv` as one line, each word shell-quoted where it needs to be, so that
// pasting it into a shell in the same directory runs it again.
std::string ShellCommandLine(int argc, const char* const* argv);

// Splits a line ShellCommandLine wrote back into its words (the inverse
// of its quoting: plain words, '...' and the '\'' escape).
std::vector<std::string> SplitCommandLine(const std::string& line);

// What every point of this scenario must look like (analysis/point_check.h).
analysis::PointExpectations ExpectationsFor(const Scenario& scenario);

analysis::Provenance ProvenanceFor(const Scenario& scenario, const std::string& command_line,
                                   const std::string& scenario_hash);

// Writes the results file atomically. On failure throws std::runtime_error
// saying why, that the file at `out_path` is unchanged and that `partial_path`
// keeps the sweep's points for --resume.
void WriteSweepOutput(const std::string& out_path, const analysis::Provenance& provenance,
                      const analysis::SweepResults& results, const std::string& partial_path);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_EXPERIMENT_OUTPUT_H_
