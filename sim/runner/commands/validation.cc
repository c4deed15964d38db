// `kvroute validation`: replays the measured vLLM runs of ../shared/measured
// and prints kvroute's predictions beside them (sim/runner/validation/);
// --markdown is docs/VALIDATION.md. --fit GPU fits that GPU kind's
// efficiencies to the runs measured on it.
#include "sim/runner/validation/validation.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "sim/runner/commands/command.h"
#include "sim/runner/validation/efficiency_fit.h"

namespace kvroute::sim {

namespace {

int RunValidationCommand(const boost::program_options::variables_map& vm, const CommandIo& io) {
  std::vector<MeasuredExperiment> experiments;
  const std::string only = TextOr(vm, "only");
  for (MeasuredExperiment& e : ReadMeasured(TextOr(vm, "measured"))) {
    if (e.id.rfind(only, 0) == 0) experiments.push_back(std::move(e));
  }
  if (experiments.empty())
    throw UsageError("--only: no measured experiment id starts with '" + only + "'");
  ReplayOptions replay;
  replay.stage_scale = vm["stage-scale"].as<double>();
  const unsigned jobs = static_cast<unsigned>(vm["jobs"].as<uint64_t>());
  if (Given(vm, "fit")) {
    const std::string gpu = TextOr(vm, "fit");
    std::vector<MeasuredExperiment> on_gpu;
    for (const MeasuredExperiment& e : experiments) {
      if (e.profile.gpu.name == gpu) on_gpu.push_back(e);
    }
    if (on_gpu.empty()) throw UsageError("--fit: no measured experiment ran on '" + gpu + "'");
    std::vector<std::string> fixed;
    if (vm.count("fix")) fixed = vm["fix"].as<std::vector<std::string>>();
    const FitResult fit =
        FitEfficiency(on_gpu, on_gpu[0].profile.gpu.efficiency, fixed, replay, jobs,
                      static_cast<int>(vm["evaluations"].as<uint64_t>()), &io.err);
    io.out << "# fitted on " << fit.experiments << " experiments in " << fit.evaluations
           << " evaluations; loss (mean |log error|) " << fit.loss << "\n";
    PrintEfficiencyYaml(io.out, fit.efficiency, "");
    return 0;
  }
  PrintValidation(io.out, RunValidation(experiments, replay, jobs), replay,
                  vm["markdown"].as<bool>());
  return 0;
}

}  // namespace

Command ValidationCommandDefinition() {
  return {"validation",
          "replay the measured vLLM runs and print kvroute's predictions beside them, or fit a "
          "GPU's efficiencies to them",
          {},
          [](OptionList& o) {
            o.Text("measured", "DIR", "folder of the measured runs (its README says how each ran)",
                   "../shared/measured");
            o.Flag("markdown", "print Markdown, as in docs/VALIDATION.md");
            o.Text("only", "PREFIX", "replay only the experiments whose id starts with this", "");
            o.RealNumber("stage-scale", "X",
                         "run the open-loop runs' load stages at this share of their length", 1e-3,
                         1, false, 1.0);
            o.WholeNumber("jobs", "N", "experiments replayed at once", 1, 4096,
                          std::max(1u, std::thread::hardware_concurrency()), "all cores");
            o.Text("fit", "GPU", "fit this GPU kind's efficiencies to the runs measured on it");
            o.Repeated("fix", "NAME", "an efficiency --fit leaves at its current value");
            o.WholeNumber("evaluations", "N", "most loss evaluations of a fit", 1, 1'000'000, 800);
          },
          RunValidationCommand};
}

}  // namespace kvroute::sim
