// `kvroute point`: one (policy, load, seed) point, as text or as one JSON
// object. On a terminal a long point shows that it is alive and what it
// expects to cost.
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "analysis/json_writer.h"
#include "analysis/request_csv.h"
#include "policies/registry.h"
#include "sim/core/did_you_mean.h"
#include "sim/runner/cluster_simulation.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/fleet_report.h"
#include "sim/runner/progress.h"
#include "sim/runner/work_estimate.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// The policy `--policy` names: a label of the scenario, or any registered
// policy with its defaults.
size_t ChoosePolicy(const std::string& name, Scenario* s) {
  for (size_t i = 0; i < s->policies.size(); ++i) {
    if (s->policies[i].label == name) return i;
  }
  if (policies::FindPolicyOrNull(name) == nullptr) {
    std::vector<std::string> names;
    for (const PolicySpec& p : s->policies) names.push_back(p.label);
    for (const policies::PolicyInfo& info : policies::PolicyTable()) names.push_back(info.name);
    throw UsageError("--policy: '" + name + "' is neither a policy of scenario '" + s->name +
                     "' nor a registered policy (valid: " + JoinNames(names) +
                     DidYouMean(name, names) + ")");
  }
  s->policies.push_back(PolicySpec{name, name, {}, "--policy"});
  return s->policies.size() - 1;
}

// Runs the point on another thread and, every second, redraws a line on
// stderr with the time spent and the estimate, until it finishes.
analysis::PointResult RunWithHeartbeat(const Scenario& s, const PointSpec& spec,
                                       analysis::RequestRecorder* recorder,
                                       const WorkEstimate& estimate, std::ostream& err) {
  analysis::PointResult result;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread worker([&] {
    try {
      result = RunPoint(s, spec, recorder);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    finished.notify_one();
  });
  const auto start = std::chrono::steady_clock::now();
  bool drawn = false;
  std::unique_lock lock(mutex);
  while (!finished.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[200];
    std::snprintf(line, sizeof line, "\rpoint %s at %g QPS: running for %s (%s)   ",
                  s.policies[spec.policy_index].label.c_str(), spec.qps,
                  FormatDuration(elapsed).c_str(), estimate.Summary().c_str());
    err << line << std::flush;
    drawn = true;
  }
  lock.unlock();
  worker.join();
  if (drawn) err << "\n" << std::flush;
  if (failure) std::rethrow_exception(failure);
  return result;
}

void PrintText(const Scenario& s, const analysis::PointResult& r, std::ostream& out) {
  out << "policy " << r.policy << ", " << r.qps << " QPS, seed " << r.seed << "\n"
      << "  requests: " << r.offered << " offered, " << r.completed << " completed, "
      << r.unfinished << " unfinished, " << r.rejected << " rejected\n"
      << "  ttft p50/p90/p99: " << r.ttft.p50 << " / " << r.ttft.p90 << " / " << r.ttft.p99
      << " s\n"
      << "  tpot p50/p90/p99: " << r.tpot.p50 << " / " << r.tpot.p90 << " / " << r.tpot.p99
      << " s\n"
      << "  token hit rate: " << 100 * r.token_hit_rate << "%, imbalance " << r.imbalance << "\n";
  for (size_t i = 0; i < s.slos.size(); ++i) {
    out << "  " << s.slos[i].Label() << ": " << r.slo_values[i] << " s ("
        << (s.slos[i].Met(r.slo_values[i]) ? "met" : "missed") << ")\n";
  }
  PrintFleetChanges(s, r, out);
}

int Point(const po::variables_map& vm, const CommandIo& io) {
  Scenario scenario = LoadScenarioArgument(vm);
  const bool native = scenario.workload.trace.timing == models::TraceConfig::Timing::kNative;
  if (!vm.count("qps") && !native) throw UsageError("--qps is required");
  PointSpec spec;
  spec.policy_index = ChoosePolicy(vm["policy"].as<std::string>(), &scenario);
  // A trace at native timing has one load, its own rate.
  spec.qps = vm.count("qps") ? vm["qps"].as<double>() : scenario.reference_qps;
  spec.seed = vm.count("seed") ? vm["seed"].as<uint64_t>() : scenario.seed;
  CheckScenarioWork(scenario, vm, 1, spec.qps);
  std::unique_ptr<analysis::RequestCsvWriter> requests;
  if (vm.count("requests")) {
    const std::string path = vm["requests"].as<std::string>();
    CheckOutputPath("--requests", path, ScenarioInputs(scenario));
    requests = OpenRequestCsv("--requests", path, scenario);
  }

  const analysis::PointResult result =
      io.err_is_terminal ? RunWithHeartbeat(scenario, spec, requests.get(),
                                            EstimatePointWork(scenario, spec.qps), io.err)
                         : RunPoint(scenario, spec, requests.get());
  if (requests) CommitRequestCsv("--requests", requests.get());
  if (vm["json"].as<bool>()) {
    io.out << analysis::PointToJson(result, scenario.slos) << "\n";
  } else {
    PrintText(scenario, result, io.out);
  }
  return 0;
}

}  // namespace

Command PointCommandDefinition() {
  return {"point",
          "simulate one (policy, load, seed) point and print its metrics, as text or JSON",
          {ScenarioArgument(true)},
          [](OptionList& o) {
            o.Required()
                .Text("policy", "NAME",
                      "a policy label of the scenario, or any registered policy with its defaults")
                .RealNumber("qps", "X",
                            "the load, requests per second (not for a native-timing trace)", 0,
                            INFINITY, true)
                .WholeNumber("seed", "S", "the seed, instead of the scenario's first", 0,
                             uint64_t{1} << 52)
                .Flag("json", "print exactly one JSON object with every metric")
                .Text("requests", "FILE",
                      "also write one CSV row per request to FILE (docs/WORKLOADS.md)");
            AddOverrideOption(o);
            AddLimitOption(o);
          },
          Point};
}

}  // namespace kvroute::sim
