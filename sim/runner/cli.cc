#include "sim/runner/cli.h"

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "analysis/atomic_file.h"
#include "analysis/format_number.h"
#include "analysis/json_writer.h"
#include "analysis/partial_file.h"
#include "analysis/table.h"
#include "models/profile.h"
#include "models/request_source.h"
#include "models/trace_replay.h"
#include "models/workload_stats.h"
#include "policies/registry.h"
#include "sim/runner/calibrate.h"
#include "sim/runner/cli_options.h"
#include "sim/runner/experiment.h"
#include "sim/runner/experiment_output.h"
#include "sim/runner/mpi_world.h"
#include "sim/runner/plan_command.h"
#include "sim/runner/profile_report.h"
#include "sim/runner/progress.h"
#include "sim/runner/report_command.h"
#include "sim/runner/scenario_loader.h"

#if KVROUTE_HAVE_MPI
#include "sim/runner/mpi_executor.h"
#endif

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

constexpr char kUsage[] =
    "usage:\n"
    "  kvroute run [SCENARIO.yaml] [--set path.to.key=value]... [--out FILE.h5] [--jobs N]\n"
    "              [--seeds N] [--policies a,b,...] [--resume] [--force] [--quiet]\n"
    "  kvroute report FILE.h5 [--format text|md|csv] [--plots DIR [--plot-qps X]\n"
    "              [--plot-format png|pdf|svg] [--dpi N] [--published FILE]]\n"
    "  kvroute report --schema\n"
    "  kvroute point SCENARIO.yaml --policy NAME --qps X [--seed S] [--set ...] [--json]\n"
    "  kvroute validate SCENARIO.yaml\n"
    "  kvroute policies\n"
    "  kvroute profiles [--markdown]\n"
    "  kvroute calibrate SCENARIO.yaml [--slo I] [--set ...]\n"
    "  kvroute plan RATES.csv --replicas R --q-cap Q --slots-per-replica W\n"
    "               [--ablation affinity|replication|full] [--format csv|json] [--out FILE]\n"
    "               [--previous PLAN.csv|PLAN.json [--churn-slack S]]\n"
    "  kvroute workload-stats SCENARIO.yaml [--set ...] [--qps X] [--seed S]\n"
    "              [--lru-blocks N,N,...] [--windows S,S,...]\n"
    "  kvroute trace-stats FILE [--format mooncake|azure] [--block-size N] [--skip N]\n"
    "              [--limit N] [--lru-blocks N,N,...] [--windows S,S,...]\n"
    "With no scenario, `run` uses the built-in quickstart.\n";

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// The scenario text stored in the output, with --seeds and --policies applied
// so that it describes exactly the run (seeds 0: unchanged; chosen empty: all).
std::string ScenarioAsRun(const std::string& yaml, uint32_t seeds,
                          const std::vector<size_t>& chosen) {
  if (seeds == 0 && chosen.empty()) return yaml;
  YAML::Node root = YAML::Load(yaml);
  if (seeds > 0) root["seeds"] = seeds;
  if (!chosen.empty()) {
    YAML::Node all = YAML::Clone(root["policies"]);
    YAML::Node subset(YAML::NodeType::Sequence);
    for (size_t index : chosen) subset.push_back(all[index]);
    root["policies"] = subset;
  }
  YAML::Emitter emitter;
  emitter << root;
  return emitter.c_str();
}

Scenario Load(const po::variables_map& vm) {
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  if (!vm.count("scenario"))
    return LoadScenarioText(QuickstartYaml(), "built-in quickstart", overrides);
  return LoadScenarioFile(vm["scenario"].as<std::string>(), overrides);
}

// Applies --seeds and --policies to the loaded scenario.
void ApplyRunOptions(const po::variables_map& vm, Scenario* scenario) {
  if (vm.count("seeds")) {
    if (vm["seeds"].as<unsigned>() == 0) throw UsageError("--seeds must be at least 1");
    scenario->seeds = vm["seeds"].as<unsigned>();
  }
  std::vector<size_t> chosen;  // indices into the scenario's policies
  if (vm.count("policies")) {
    for (const std::string& name : SplitCommas(vm["policies"].as<std::string>())) {
      auto it = std::find_if(scenario->policies.begin(), scenario->policies.end(),
                             [&](const PolicySpec& p) { return p.label == name; });
      if (it == scenario->policies.end()) {
        throw UsageError("--policies: '" + name + "' is not a policy of scenario '" +
                         scenario->name + "'");
      }
      size_t index = static_cast<size_t>(it - scenario->policies.begin());
      if (std::find(chosen.begin(), chosen.end(), index) != chosen.end()) {
        throw UsageError("--policies: '" + name + "' is named twice");
      }
      chosen.push_back(index);
    }
    if (chosen.empty()) throw UsageError("--policies: no policy named");
    std::vector<PolicySpec> subset;
    for (size_t index : chosen) subset.push_back(scenario->policies[index]);
    scenario->policies = subset;
    // A baseline left out of the run has no capacities to compare with.
    if (std::none_of(subset.begin(), subset.end(),
                     [&](const PolicySpec& p) { return p.label == scenario->baseline; })) {
      scenario->baseline.clear();
    }
  }
  scenario->yaml = ScenarioAsRun(scenario->yaml, vm.count("seeds") ? scenario->seeds : 0, chosen);
}

// The points an earlier, interrupted run committed, and the partial file this
// run appends to.
analysis::PartialFile OpenPartial(const std::string& path, const Scenario& scenario,
                                  const std::string& hash, bool resume,
                                  std::vector<analysis::PointResult>* finished,
                                  spdlog::logger* notes) {
  bool exists = std::filesystem::exists(path);
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

int Run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  po::options_description options("run");
  options.add_options()("scenario", po::value<std::string>())(
      "set", po::value<std::vector<std::string>>()->composing())("out", po::value<std::string>())(
      "jobs",
      po::value<unsigned>()->default_value(std::max(1u, std::thread::hardware_concurrency())))(
      "seeds", po::value<unsigned>())("policies", po::value<std::string>())(
      "quiet", po::bool_switch())("resume", po::bool_switch())("stop-after", po::value<size_t>());
  options.add_options()("force", po::bool_switch());  // replace an existing output
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);

  Scenario scenario = Load(vm);
  ApplyRunOptions(vm, &scenario);
  const unsigned jobs = std::max(1u, vm["jobs"].as<unsigned>());
  const MpiWorld world = CurrentWorld();
  if (world.rank > 0) {
#if KVROUTE_HAVE_MPI
    ServeMpiWorker(scenario, jobs);
#endif
    return 0;
  }

  std::string out_path = vm.count("out") ? vm["out"].as<std::string>() : scenario.name + ".h5";
  CheckOverwrite(out_path, scenario, vm["force"].as<bool>());
  bool quiet = vm["quiet"].as<bool>();
  // A terminal gets a progress bar; a pipe or a file, a line per point.
  bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
  Progress progress(err, terminal, scenario.slos[0].Label());
  auto note_sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err, /*force_flush=*/true);
  spdlog::logger notes("kvroute", note_sink);
  notes.set_pattern("%v");

  const std::string hash = ScenarioHash(scenario);
  SweepOptions sweep;
  analysis::PartialFile partial =
      OpenPartial(out_path + ".partial", scenario, hash, vm["resume"].as<bool>(), &sweep.finished,
                  quiet ? nullptr : &notes);
  // --stop-after N interrupts the sweep once N points have run, as a kill
  // would (the partial file stays); the resume tests use it.
  size_t stop_after = vm.count("stop-after") ? vm["stop-after"].as<size_t>() : 0;
  size_t ran = 0;
  sweep.on_point = [&](size_t done, size_t known, const analysis::PointResult& p) {
    partial.Append(p);
    if (!quiet) progress.OnPoint(done, known, p);
    if (stop_after > 0 && ++ran >= stop_after) {
      throw std::runtime_error("stopped after " + std::to_string(ran) + " points (--stop-after); " +
                               out_path + ".partial keeps them for --resume");
    }
  };

  std::unique_ptr<PointExecutor> executor;
#if KVROUTE_HAVE_MPI
  if (world.size > 1) executor = std::make_unique<MpiExecutor>(world, jobs);
#endif
  if (!executor) executor = std::make_unique<ThreadExecutor>(jobs);
  auto start = std::chrono::steady_clock::now();
  analysis::SweepResults results = RunSweep(scenario, *executor, sweep);
  unsigned workers = executor->workers();
  executor.reset();
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (!quiet) progress.Finish();

  out << "kvroute " << kVersion << " — scenario '" << scenario.name << "' (" << scenario.source
      << "): " << scenario.replica_count() << " replicas of " << scenario.profile << ", "
      << scenario.policies.size() << " policies x " << scenario.qps.size() << " loads x "
      << scenario.seeds << " seeds";
  if (results.points.size() > SweepPoints(scenario).size()) {
    out << " + " << results.points.size() - SweepPoints(scenario).size()
        << " bisection points (precision " << analysis::FormatNumber("%g", scenario.precision_qps)
        << " QPS)";
  }
  out << "\n";
  analysis::PrintSummaryTables(results, out);

  WriteSweepOutput(out_path,
                   ProvenanceFor(scenario, ReplayableCommandLine("run", argc, argv), hash), results,
                   out_path + ".partial");
  partial.Remove();
  uint64_t requests = 0, events = 0;
  for (const analysis::PointResult& p : results.points) {
    requests += p.offered;
    events += p.events;
  }
  out << "\nwrote " << out_path << " (" << results.points.size() << " points, " << requests
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

int Point(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("point");
  options.add_options()("scenario", po::value<std::string>())("policy", po::value<std::string>())(
      "qps", po::value<double>())("seed", po::value<uint64_t>())(
      "set", po::value<std::vector<std::string>>()->composing())("json", po::bool_switch());
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (!vm.count("scenario")) throw UsageError("point: a scenario file is required");
  if (!vm.count("policy")) throw UsageError("point: --policy is required");
  Scenario scenario = Load(vm);
  bool native = scenario.workload.trace.timing == models::TraceConfig::Timing::kNative;
  if (!vm.count("qps") && !native) throw UsageError("point: --qps is required");
  std::string name = vm["policy"].as<std::string>();
  PointSpec spec;
  auto it = std::find_if(scenario.policies.begin(), scenario.policies.end(),
                         [&](const PolicySpec& p) { return p.label == name; });
  if (it != scenario.policies.end()) {
    spec.policy_index = static_cast<size_t>(it - scenario.policies.begin());
  } else {
    policies::FindPolicy(name);  // a known policy the scenario does not list: defaults
    scenario.policies.push_back(PolicySpec{name, name, {}, "--policy"});
    spec.policy_index = scenario.policies.size() - 1;
  }
  // A trace at native timing has one load, its own rate.
  spec.qps = vm.count("qps") ? vm["qps"].as<double>() : scenario.reference_qps;
  if (!(spec.qps > 0) || !std::isfinite(spec.qps))
    throw UsageError("--qps must be a positive number");
  spec.seed = vm.count("seed") ? vm["seed"].as<uint64_t>() : scenario.seed;

  analysis::PointResult result = RunPoint(scenario, spec);
  if (vm["json"].as<bool>()) {
    out << analysis::PointToJson(result, scenario.slos) << "\n";
    return 0;
  }
  out << "policy " << result.policy << ", " << result.qps << " QPS, seed " << result.seed << "\n"
      << "  requests: " << result.offered << " offered, " << result.completed << " completed, "
      << result.unfinished << " unfinished, " << result.rejected << " rejected\n"
      << "  ttft p50/p90/p99: " << result.ttft.p50 << " / " << result.ttft.p90 << " / "
      << result.ttft.p99 << " s\n"
      << "  tpot p50/p90/p99: " << result.tpot.p50 << " / " << result.tpot.p90 << " / "
      << result.tpot.p99 << " s\n"
      << "  token hit rate: " << 100 * result.token_hit_rate << "%, imbalance " << result.imbalance
      << "\n";
  for (size_t i = 0; i < scenario.slos.size(); ++i) {
    out << "  " << scenario.slos[i].Label() << ": " << result.slo_values[i] << " s ("
        << (scenario.slos[i].Met(result.slo_values[i]) ? "met" : "missed") << ")\n";
  }
  return 0;
}

int Validate(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("validate");
  options.add_options()("scenario", po::value<std::string>())(
      "set", po::value<std::vector<std::string>>()->composing());
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (!vm.count("scenario")) throw UsageError("validate: a scenario file is required");
  Scenario s = Load(vm);
  const models::Profile& profile = s.resolved_profile;
  int64_t blocks = s.kv_blocks > 0 ? s.kv_blocks : profile.KvCapacityBlocks();
  out << s.source << ": ok — scenario '" << s.name << "': " << s.replica_count() << " replicas of "
      << s.profile << " (" << blocks << " KV blocks of " << profile.block_size_tokens
      << " tokens each), "
      << (s.workload.trace.format == models::TraceConfig::Format::kNone
              ? std::to_string(s.workload.keys) + " keys"
              : "trace " + s.workload.trace.file)
      << "; " << s.policies.size() << " policies x " << s.qps.size() << " loads x " << s.seeds
      << " seeds = " << s.policies.size() * s.qps.size() * s.seeds << " points\n";
  return 0;
}

int CalibrateCommand(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("calibrate");
  options.add_options()("scenario", po::value<std::string>())("slo", po::value<unsigned>())(
      "set", po::value<std::vector<std::string>>()->composing());
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  Scenario s = Load(vm);
  size_t slo = vm.count("slo") ? vm["slo"].as<unsigned>() : 0;
  if (slo >= s.slos.size()) throw UsageError("--slo must index one of the scenario's SLOs");
  CalibrationReport r = Calibrate(s, slo);
  out << "calibration of '" << s.name << "' (" << s.source << ") on one replica of " << s.profile
      << ", SLO " << s.slos[slo].Label() << ", seed " << s.seed << ", " << r.probes << " points\n";
  for (const std::string& line : r.derivation) out << "  " << line << "\n";
  out << "q_cap: " << r.q_cap << "\nslots_per_replica (W): " << r.slots_per_replica << "\n"
      << "as a policy entry: {name: cacheroute, q_cap: " << r.q_cap
      << ", slots_per_replica: " << r.slots_per_replica << "}\n";
  return 0;
}

int Plan(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("plan");
  options.add_options()("rates", po::value<std::string>())("replicas", po::value<uint32_t>())(
      "q-cap", po::value<double>())("slots-per-replica", po::value<uint32_t>())(
      "ablation", po::value<std::string>()->default_value("full"))(
      "format", po::value<std::string>()->default_value("csv"))("out", po::value<std::string>())(
      "previous", po::value<std::string>())("churn-slack",
                                            po::value<double>()->default_value(0.05));
  po::positional_options_description positional;
  positional.add("rates", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  for (const char* required : {"rates", "replicas", "q-cap", "slots-per-replica"}) {
    if (!vm.count(required)) {
      throw UsageError(
          (std::string(required) == "rates" ? "a rates file" : "--" + std::string(required)) +
          " is required");
    }
  }
  policies::PlannerConfig config{.destinations = vm["replicas"].as<uint32_t>(),
                                 .q_cap = vm["q-cap"].as<double>(),
                                 .slots_per_destination = vm["slots-per-replica"].as<uint32_t>()};
  if (config.destinations == 0) throw UsageError("--replicas must be at least 1");
  if (!(config.q_cap > 0) || !std::isfinite(config.q_cap))
    throw UsageError("--q-cap must be a positive number");
  const std::string ablation = vm["ablation"].as<std::string>();
  if (ablation == "affinity") {
    config.ablation = policies::PlanAblation::kAffinityOnly;
  } else if (ablation == "replication") {
    config.ablation = policies::PlanAblation::kReplication;
  } else if (ablation != "full") {
    throw UsageError("--ablation must be one of affinity, replication, full");
  }
  const std::string format = vm["format"].as<std::string>();
  if (format != "csv" && format != "json") throw UsageError("--format must be csv or json");

  const std::string path = vm["rates"].as<std::string>();
  std::ifstream in(path);
  if (!in) throw RatesFileError(path + ": cannot open");
  KeyRates rates = ReadKeyRates(in, path);

  const double slack = vm["churn-slack"].as<double>();
  if (!(slack >= 0) || !std::isfinite(slack)) {
    throw UsageError("--churn-slack must be a non-negative number");
  }
  std::optional<PreviousPlan> previous;
  if (vm.count("previous")) {
    const std::string previous_path = vm["previous"].as<std::string>();
    std::ifstream previous_in(previous_path);
    if (!previous_in) throw PlanFileError(previous_path + ": cannot open");
    const bool json = previous_path.size() >= 5 &&
                      previous_path.compare(previous_path.size() - 5, 5, ".json") == 0;
    previous = json ? ReadPreviousPlanJson(previous_in, previous_path, config.destinations)
                    : ReadPreviousPlanCsv(previous_in, previous_path, config.destinations);
  }

  auto start = std::chrono::steady_clock::now();
  ChurnReport churn;
  policies::RoutingPlan plan = previous ? BuildPlanAgainst(rates, *previous, config, slack, &churn)
                                        : policies::BuildPlan(rates.rates, config);
  double build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::ostringstream text;
  if (format == "json") {
    WritePlanJson(text, rates, plan, build_seconds, previous ? &churn : nullptr);
  } else {
    WritePlanCsv(text, rates, plan, build_seconds, previous ? &churn : nullptr);
  }
  if (vm.count("out")) {
    analysis::WriteFileAtomically(vm["out"].as<std::string>(), text.str());
  } else {
    out << text.str();
  }
  return 0;
}

template <typename T>
std::vector<T> ParseList(const std::string& option, const std::string& text) {
  std::vector<T> values;
  for (const std::string& part : SplitCommas(text)) {
    try {
      size_t used = 0;
      double v = std::stod(part, &used);
      if (used != part.size() || !(v > 0) || !std::isfinite(v)) throw std::invalid_argument(part);
      values.push_back(static_cast<T>(v));
    } catch (const std::exception&) {
      throw UsageError("--" + option + ": expected positive numbers separated by commas, got '" +
                       part + "'");
    }
  }
  return values;
}

void AddStatsOptions(po::options_description* options) {
  options->add_options()("lru-blocks", po::value<std::string>())(
      "windows", po::value<std::string>()->default_value("10,60,300,1800"));
}

models::WorkloadStatsOptions StatsOptions(const po::variables_map& vm, uint32_t block_size,
                                          std::vector<uint64_t> default_lru) {
  models::WorkloadStatsOptions o;
  o.block_size = block_size;
  o.lru_blocks = vm.count("lru-blocks")
                     ? ParseList<uint64_t>("lru-blocks", vm["lru-blocks"].as<std::string>())
                     : default_lru;
  o.windows_s = ParseList<double>("windows", vm["windows"].as<std::string>());
  std::sort(o.windows_s.begin(), o.windows_s.end());
  return o;
}

// Generates the scenario's requests at one load and seed, exactly as a point
// would see them, and prints what they offer a prefix cache.
int WorkloadStatsCommand(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("workload-stats");
  options.add_options()("scenario", po::value<std::string>())(
      "set", po::value<std::vector<std::string>>()->composing())("qps", po::value<double>())(
      "seed", po::value<uint64_t>());
  AddStatsOptions(&options);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (!vm.count("scenario")) throw UsageError("workload-stats: a scenario file is required");
  Scenario s = Load(vm);
  double qps = vm.count("qps") ? vm["qps"].as<double>() : s.reference_qps;
  if (!(qps > 0) || !std::isfinite(qps)) throw UsageError("--qps must be a positive number");
  uint64_t seed = vm.count("seed") ? vm["seed"].as<uint64_t>() : s.seed;
  const models::Profile& profile = models::FindProfile(s.profile);
  uint64_t blocks = s.kv_blocks > 0 ? static_cast<uint64_t>(s.kv_blocks)
                                    : static_cast<uint64_t>(profile.KvCapacityBlocks());
  models::WorkloadStatsOptions o = StatsOptions(
      vm, static_cast<uint32_t>(profile.block_size_tokens), {blocks, blocks * s.replica_count()});
  auto start = std::chrono::steady_clock::now();
  auto source = models::MakeRequestSource(s.workload, seed, qps, FromSeconds(s.duration_s));
  models::WorkloadStatsCollector collector(o);
  models::Request r;
  while (source->Next(&r)) collector.Add(r, source->segments());
  models::WorkloadStats stats = collector.Finish();
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  out << "workload of scenario '" << s.name << "' (" << s.source << ") at " << qps << " QPS, seed "
      << seed << ", " << s.duration_s << " s; LRU sizes: one replica's KV pool "
      << "and the cluster's unless --lru-blocks\n";
  models::PrintWorkloadStats(stats, o, out);
  out << "(computed in " << std::round(took.count() * 100) / 100 << " s)\n";
  return 0;
}

// Replays a trace at its own timing and prints what it offers a prefix cache.
int TraceStatsCommand(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("trace-stats");
  options.add_options()("file", po::value<std::string>())("format", po::value<std::string>())(
      "block-size", po::value<uint32_t>()->default_value(16))(
      "skip", po::value<uint64_t>()->default_value(0))("limit",
                                                       po::value<uint64_t>()->default_value(0));
  AddStatsOptions(&options);
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm = Parse(argc, argv, options, positional);
  if (!vm.count("file")) throw UsageError("trace-stats: a trace file is required");
  models::TraceConfig config;
  config.file = vm["file"].as<std::string>();
  config.format = models::GuessTraceFormat(config.file);
  if (vm.count("format")) {
    std::string f = vm["format"].as<std::string>();
    if (f == "mooncake") {
      config.format = models::TraceConfig::Format::kMooncake;
    } else if (f == "azure") {
      config.format = models::TraceConfig::Format::kAzure;
    } else {
      throw UsageError("--format: unknown trace format '" + f + "' (valid: mooncake, azure)");
    }
  }
  if (config.format == models::TraceConfig::Format::kNone) {
    throw UsageError("trace-stats: cannot tell the format of '" + config.file +
                     "' from its name; give --format mooncake|azure");
  }
  config.skip = vm["skip"].as<uint64_t>();
  config.limit = vm["limit"].as<uint64_t>();
  uint32_t block_size = vm["block-size"].as<uint32_t>();
  if (block_size == 0) throw UsageError("--block-size must be at least 1");
  models::WorkloadStatsOptions o = StatsOptions(vm, block_size, {25'000, 200'000});

  auto trace = std::make_shared<const models::Trace>(models::ReadTrace(config));
  models::TraceReplay probe(trace, false, 1.0, kNever, block_size);
  models::TraceReplay replay(trace, false, probe.native_qps(), kNever, block_size);
  models::WorkloadStatsCollector collector(o);
  models::Request r;
  while (replay.Next(&r)) collector.Add(r, replay.segments());
  models::WorkloadStats stats = collector.Finish();
  out << "trace " << config.file << " ("
      << (config.format == models::TraceConfig::Format::kMooncake ? "mooncake" : "azure")
      << "), replayed at its own timing\n";
  models::PrintWorkloadStats(stats, o, out);
  if (config.format == models::TraceConfig::Format::kMooncake) {
    char line[128];
    std::snprintf(line, sizeof line,
                  "trace block hit rate %.1f%% of the trace's 512-token block ids\n",
                  100 * models::NativeBlockHitRate(*trace));
    out << line;
  }
  return 0;
}

int ListPolicies(std::ostream& out) {
  for (const policies::PolicyInfo& info : policies::PolicyTable()) {
    out << info.name << " — " << info.description << "\n";
    for (const policies::ParamSpec& p : info.params) {
      out << "    " << p.name << " = ";
      if (p.choices.empty()) {
        out << p.default_value;
      } else {
        out << p.choices[static_cast<size_t>(p.default_value)] << " (one of";
        for (const std::string& c : p.choices) out << " " << c;
        out << ")";
      }
      out << "  (" << p.description << ")\n";
    }
  }
  return 0;
}

int RunCommand(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (argc < 2) {
    err << kUsage;
    return 2;
  }
  std::string command = argv[1];
  try {
    // Options start after the command word; keep argv[0] for program_options.
    std::vector<const char*> rest{argv[0]};
    for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
    int n = static_cast<int>(rest.size());
    if (command == "run") return Run(n, rest.data(), out, err);
    if (command == "point") return Point(n, rest.data(), out);
    if (command == "validate") return Validate(n, rest.data(), out);
    if (command == "policies") return ListPolicies(out);
    if (command == "calibrate") return CalibrateCommand(n, rest.data(), out);
    if (command == "profiles") {
      bool markdown = n == 2 && std::string(rest[1]) == "--markdown";
      if (n > 2 || (n == 2 && !markdown)) throw UsageError("profiles takes only --markdown");
      PrintProfiles(out, markdown);
      return 0;
    }
    if (command == "plan") return Plan(n, rest.data(), out);
    if (command == "workload-stats") return WorkloadStatsCommand(n, rest.data(), out);
    if (command == "trace-stats") return TraceStatsCommand(n, rest.data(), out);
    if (command == "report") return Report(n, rest.data(), out);
    if (command == "--help" || command == "-h" || command == "help") {
      out << kUsage;
      return 0;
    }
    if (command == "--version") {
      out << "kvroute " << kVersion << "\n";
      return 0;
    }
    err << "kvroute: unknown command '" << command
        << "' (valid: run, point, validate, policies, profiles, calibrate, plan, report, "
           "workload-stats, trace-stats)\n"
        << kUsage;
    return 2;
  } catch (const UsageError& e) {
    err << "kvroute " << command << ": " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const ScenarioError& e) {
    err << "kvroute: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "kvroute: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  int status = RunCommand(argc, argv, out, err);
  // Under MPI the other ranks may be waiting for this one: end them all.
  if (status != 0 && CurrentWorld().size > 1) AbortWorld(status);
  return status;
}

}  // namespace kvroute::sim
