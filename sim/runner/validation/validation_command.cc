#include "sim/runner/validation/validation_command.h"

#include <boost/program_options.hpp>
#include <stdexcept>
#include <thread>

#include "sim/runner/validation/efficiency_fit.h"
#include "sim/runner/validation/validation.h"

namespace kvroute::sim {

namespace po = boost::program_options;

int ValidationCommand(int argc, const char* const* argv, std::ostream& out) {
  po::options_description options("kvroute validation [options]");
  options.add_options()("measured", po::value<std::string>()->default_value("../shared/measured"),
                        "folder of the measured runs")("markdown", po::bool_switch(),
                                                       "print docs/VALIDATION.md")(
      "only", po::value<std::string>()->default_value(""),
      "replay only experiments whose id starts with this")(
      "stage-scale", po::value<double>()->default_value(1.0),
      "run load stages at this share of their measured length")(
      "turnaround", po::value<double>()->default_value(0), "closed-loop client turnaround, s")(
      "no-ramp", po::bool_switch(), "closed-loop clients all start at 0")(
      "fit", po::value<std::string>(), "fit this GPU's efficiencies to its measured runs")(
      "fix", po::value<std::vector<std::string>>()->composing(), "efficiency held while fitting")(
      "evaluations", po::value<int>()->default_value(800), "most loss evaluations of a fit")(
      "jobs", po::value<unsigned>()->default_value(std::thread::hardware_concurrency()), "threads");
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
  po::notify(vm);
  std::vector<MeasuredExperiment> experiments;
  for (MeasuredExperiment& e : ReadMeasured(vm["measured"].as<std::string>())) {
    if (e.id.rfind(vm["only"].as<std::string>(), 0) == 0) experiments.push_back(std::move(e));
  }
  ReplayOptions replay;
  replay.stage_scale = vm["stage-scale"].as<double>();
  replay.client_turnaround_s = vm["turnaround"].as<double>();
  replay.ramp = !vm["no-ramp"].as<bool>();
  const unsigned jobs = vm["jobs"].as<unsigned>();
  if (vm.count("fit")) {
    const std::string gpu = vm["fit"].as<std::string>();
    std::vector<MeasuredExperiment> on_gpu;
    for (const MeasuredExperiment& e : experiments) {
      if (e.profile.gpu.name == gpu) on_gpu.push_back(e);
    }
    if (on_gpu.empty()) throw std::invalid_argument("--fit: no measured experiment ran on " + gpu);
    std::vector<std::string> fixed;
    if (vm.count("fix")) fixed = vm["fix"].as<std::vector<std::string>>();
    FitResult fit = FitEfficiency(on_gpu, on_gpu[0].profile.gpu.efficiency, fixed, replay, jobs,
                                  vm["evaluations"].as<int>(), &out);
    out << "fitted " << fit.experiments << " experiments in " << fit.evaluations
        << " evaluations, loss " << fit.loss << "\n";
    PrintEfficiencyYaml(out, fit.efficiency, "");
    return 0;
  }
  PrintValidation(out, RunValidation(experiments, replay, jobs), replay, vm["markdown"].as<bool>());
  return 0;
}

}  // namespace kvroute::sim
