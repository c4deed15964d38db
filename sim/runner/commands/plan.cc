// `kvroute plan`: a CacheRoute routing table (seed 003 §3.1) from measured
// per-key rates, optionally planned against the table rolled out last time
// (churn_aware, §3.2), written as CSV or JSON (sim/runner/plan_command.h).
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>

#include "analysis/atomic_file.h"
#include "sim/core/input_file.h"
#include "sim/runner/commands/common.h"
#include "sim/runner/plan_command.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

KeyRates ReadRates(const std::string& path) {
  CheckInputFile(path, kRatesInput);
  std::ifstream in(path);
  if (!in) throw RatesFileError(path + ": cannot open");
  return ReadKeyRates(in, path);
}

PreviousPlan ReadPrevious(const std::string& path, uint32_t replicas) {
  CheckInputFile(path, kPlanInput);
  std::ifstream in(path);
  if (!in) throw PlanFileError(path + ": cannot open");
  return path.ends_with(".json") ? ReadPreviousPlanJson(in, path, replicas)
                                 : ReadPreviousPlanCsv(in, path, replicas);
}

int Plan(const po::variables_map& vm, const CommandIo& io) {
  policies::PlannerConfig config{
      .destinations = static_cast<uint32_t>(vm["replicas"].as<uint64_t>()),
      .q_cap = vm["q-cap"].as<double>(),
      .slots_per_destination = static_cast<uint32_t>(vm["slots-per-replica"].as<uint64_t>())};
  config.ablation = *PlanAblations().Find(vm["ablation"].as<std::string>());
  const std::string rates_path = vm["rates"].as<std::string>();
  const std::string previous_path = TextOr(vm, "previous");
  const std::string out_path = TextOr(vm, "out");
  if (Given(vm, "out")) {
    std::vector<std::string> inputs{rates_path};
    if (!previous_path.empty()) inputs.push_back(previous_path);
    CheckOutputPath("--out", out_path, inputs);
  }
  if (Given(vm, "churn-slack") && previous_path.empty()) {
    throw UsageError("--churn-slack needs --previous");
  }

  const KeyRates rates = ReadRates(rates_path);
  std::optional<PreviousPlan> previous;
  if (!previous_path.empty()) previous = ReadPrevious(previous_path, config.destinations);

  const auto start = std::chrono::steady_clock::now();
  ChurnReport churn;
  const policies::RoutingPlan plan =
      previous ? BuildPlanAgainst(rates, *previous, config, vm["churn-slack"].as<double>(), &churn)
               : policies::BuildPlan(rates.rates, config);
  const double build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::ostringstream text;
  if (vm["format"].as<std::string>() == "json") {
    WritePlanJson(text, rates, plan, build_seconds, previous ? &churn : nullptr);
  } else {
    WritePlanCsv(text, rates, plan, build_seconds, previous ? &churn : nullptr);
  }
  if (out_path.empty()) {
    io.out << text.str();
  } else {
    analysis::WriteFileAtomically(out_path, text.str());
  }
  return 0;
}

}  // namespace

Command PlanCommandDefinition() {
  return {
      "plan",
      "build a CacheRoute routing table from measured per-key rates (CSV key,rate)",
      {{"rates", "RATES.csv", "measured rates: a key,rate header, then one key,rate per line",
        true}},
      [](OptionList& o) {
        o.Required()
            .WholeNumber("replicas", "R", "destinations to plan for", 1, 100'000)
            .Required()
            .RealNumber("q-cap", "Q", "requests per second one destination serves", 0, 1e9, true)
            .Required()
            .WholeNumber("slots-per-replica", "W", "warm-key slots per destination", 1, 10'000'000)
            .Choice("ablation", PlanAblations().names(),
                    "affinity: no replication; replication: no cold-tail spreading; full", "full")
            .Choice("format", {"csv", "json"}, "output format", "csv")
            .Text("out", "FILE", "write the table here instead of stdout")
            .Text("previous", "PLAN",
                  "plan against this earlier table (CSV, or JSON when it ends in .json)")
            .RealNumber("churn-slack", "S",
                        "with --previous: keep old destinations within (1+S) x the fresh "
                        "plan's highest load",
                        0, 100, false, 0.05);
      },
      Plan};
}

}  // namespace kvroute::sim
