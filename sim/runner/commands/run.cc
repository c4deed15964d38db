// `kvroute run`: every (policy, load, seed) point of a scenario, its capacity
// tables on stdout and the results file. Each finished point is committed to
// OUT.partial first, so an interrupted run loses only the points running and
// `--resume` continues it (analysis/partial_file.h).
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "analysis/build_info.h"
#include "analysis/format_number.h"
#include "analysis/partial_file.h"
#include "analysis/table.h"
#include "sim/runner/cli.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/commands/interrupt_notice.h"
#include "sim/runner/commands/output_lock.h"
#include "sim/runner/commands/run_subset.h"
#include "sim/runner/experiment.h"
#include "sim/runner/experiment_output.h"
#include "sim/runner/mpi_world.h"
#include "sim/runner/progress.h"

#if KVROUTE_HAVE_MPI
#include "sim/runner/mpi_executor.h"
#endif

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// The points an earlier, interrupted run committed, and the partial file this
// run appends to. The caller holds the output's lock: a partial file present
// now was left by a run that is no longer alive.
analysis::PartialFile OpenPartial(const std::string& path, const Scenario& scenario,
                                  const std::string& hash, bool resume,
                                  std::vector<analysis::PointResult>* finished,
                                  spdlog::logger* notes) {
  const bool exists = std::filesystem::exists(path);
  if (resume && exists) {
    analysis::PartialFile file =
        analysis::PartialFile::Resume(path, hash, ExpectationsFor(scenario), finished);
    if (notes) notes->info("resuming {}: {} points already done", path, finished->size());
    return file;
  }
  if (notes && resume) notes->info("--resume: no {} to resume, starting afresh", path);
  if (notes && exists && !resume) {
    notes->info("replacing {} left by an interrupted run (--resume would continue it)", path);
  }
  return analysis::PartialFile::Create(path, hash, scenario.yaml);
}

void PrintHeader(const Scenario& s, const analysis::SweepResults& results, std::ostream& out) {
  out << "kvroute " << analysis::KvrouteVersion() << " — scenario '" << s.name << "' (" << s.source
      << "): " << s.replica_count() << " replicas of "
      << (s.MixedProfiles() ? "several profiles (kvroute validate lists them)" : s.profile) << ", "
      << s.policies.size() << " policies x " << s.qps.size() << " loads x " << s.seeds << " seeds";
  const size_t grid = SweepPoints(s).size();
  if (results.points.size() > grid) {
    out << " + " << results.points.size() - grid << " bisection points (precision "
        << analysis::FormatNumber("%g", s.precision_qps) << " QPS";
    if (s.precision_share > 0) {
      out << " or " << analysis::FormatNumber("%g", 100 * s.precision_share) << "%";
    }
    out << ")";
  }
  out << "\n";
}

int Run(const po::variables_map& vm, const CommandIo& io) {
  Scenario scenario = LoadScenarioArgument(vm);
  std::optional<uint32_t> seeds;
  if (vm.count("seeds")) seeds = static_cast<uint32_t>(vm["seeds"].as<uint64_t>());
  std::optional<std::string> chosen;
  if (vm.count("policies")) chosen = vm["policies"].as<std::string>();
  NarrowScenario(seeds, chosen, &scenario);
  if (vm.count("requests"))
    scenario.requests_dir = CheckRequestsDir(vm["requests"].as<std::string>());
  const auto jobs = static_cast<unsigned>(vm["jobs"].as<uint64_t>());
  const MpiWorld world = CurrentWorld();
  if (world.rank > 0) {
#if KVROUTE_HAVE_MPI
    ServeMpiWorker(scenario, jobs);
#endif
    return 0;
  }

  const std::string out_path = TextOr(vm, "out", scenario.name + ".h5");
  CheckOutputPath("--out", out_path, ScenarioInputs(scenario));
  CheckOutputPath("--out", out_path + ".partial", ScenarioInputs(scenario));
  if (!vm["force"].as<bool>() && std::filesystem::exists(out_path)) {
    // The file's state, not the command line, is at fault: exit 1, no usage.
    throw std::runtime_error(
        "--out '" + out_path +
        "': exists (an earlier run's results?); pass --force to replace it, or "
        "--out another file");
  }
  const size_t points = SweepPoints(scenario).size();
  CheckScenarioWork(scenario, vm, static_cast<unsigned>(std::min<size_t>(jobs, points)));

  const bool quiet = vm["quiet"].as<bool>(), resume = vm["resume"].as<bool>();
  const std::string partial_path = out_path + ".partial";
  OutputLock lock(out_path);
  InterruptNotice notice(partial_path, lock.path(), io.command_line + (resume ? "" : " --resume"));
  Progress progress(io.err, io.err_is_terminal, scenario.slos[0].Label());
  auto note_sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(io.err, /*force_flush=*/true);
  spdlog::logger notes("kvroute", note_sink);
  notes.set_pattern("%v");

  const std::string hash = ScenarioHash(scenario);
  SweepOptions sweep;
  analysis::PartialFile partial =
      OpenPartial(partial_path, scenario, hash, resume, &sweep.finished, quiet ? nullptr : &notes);
  // --stop-after N interrupts the sweep once N points have run, as a kill
  // would (the partial file stays); the resume tests use it.
  const size_t stop_after = vm.count("stop-after") ? vm["stop-after"].as<uint64_t>() : 0;
  size_t ran = 0;
  sweep.on_point = [&](size_t done, size_t known, const analysis::PointResult& p) {
    partial.Append(p);
    notice.SetCommitted(done);
    if (!quiet) progress.OnPoint(done, known, p);
    if (stop_after > 0 && ++ran >= stop_after) {
      throw std::runtime_error("stopped after " + std::to_string(ran) + " points (--stop-after); " +
                               partial_path + " keeps them for --resume");
    }
  };
  notice.SetCommitted(sweep.finished.size());

  std::unique_ptr<PointExecutor> executor;
#if KVROUTE_HAVE_MPI
  if (world.size > 1) executor = std::make_unique<MpiExecutor>(world, jobs);
#endif
  if (!executor) executor = std::make_unique<ThreadExecutor>(jobs);
  const auto start = std::chrono::steady_clock::now();
  analysis::SweepResults results = RunSweep(scenario, *executor, sweep);
  const unsigned workers = executor->workers();
  executor.reset();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (!quiet) progress.Finish();

  PrintHeader(scenario, results, io.out);
  analysis::PrintSummaryTables(results, io.out);
  WriteSweepOutput(out_path, ProvenanceFor(scenario, io.command_line, hash), results, partial_path);
  partial.Remove();
  uint64_t requests = 0, events = 0;
  for (const analysis::PointResult& p : results.points) {
    requests += p.offered;
    events += p.events;
  }
  io.out << "\nwrote " << out_path << " (" << results.points.size() << " points, " << requests
         << " simulated requests in " << std::round(took.count() * 10) / 10 << " s on " << workers
         << (world.size > 1 ? " threads over " + std::to_string(world.size) + " MPI ranks"
                            : std::string(" threads"))
         << (sweep.finished.empty() ? ""
                                    : ", " + std::to_string(sweep.finished.size()) +
                                          " points resumed from the partial file")
         << ": " << analysis::FormatNumber("%.0f", static_cast<double>(requests) / took.count())
         << " requests and "
         << analysis::FormatNumber("%.0f", static_cast<double>(events) / took.count())
         << " events per wall-second)\n";
  return 0;
}

}  // namespace

Command RunCommandDefinition() {
  return {
      "run",
      "simulate every (policy, load, seed) point of a scenario; print capacity tables and write "
      "the results file",
      {ScenarioArgument(false)},
      [](OptionList& o) {
        AddOverrideOption(o);
        o.TextDerived("out", "FILE", "the results file (HDF5)", "<scenario name>.h5")
            .WholeNumber("jobs", "N", "worker threads (per MPI rank)", 1, 4096,
                         std::max(1u, std::thread::hardware_concurrency()), "all cores")
            .WholeNumber("seeds", "N", "paired seeds, instead of the scenario's", 1, 10000)
            .Text("policies", "A,B,...", "run only these policies of the scenario (labels)")
            .Flag("resume", "continue from FILE.partial, left by an interrupted run")
            .Flag("force", "replace FILE if it exists")
            .Text("requests", "DIR",
                  "also write each point's per-request CSV to DIR/POLICY_qpsX_seedS.csv "
                  "(docs/WORKLOADS.md)")
            .Flag("quiet", "print no progress on stderr")
            .WholeNumber("stop-after", "N",
                         "stop, as an interruption would, after N points (for resume tests)", 1,
                         1'000'000'000);
        AddLimitOption(o);
      },
      Run};
}

}  // namespace kvroute::sim
