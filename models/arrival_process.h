// Arrival processes (seed 003 §5.6). Each produces the gaps of a unit-rate
// process (mean gap 1); the workload divides unit time by the load's QPS, so
// every load sees the same sequence of requests, and a LoadSchedule may then
// warp that time to vary the load over the run.
#ifndef KVROUTE_MODELS_ARRIVAL_PROCESS_H_
#define KVROUTE_MODELS_ARRIVAL_PROCESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/random_stream.h"

namespace kvroute::models {

struct ArrivalConfig {
  // kClosedLoop: the timing is the clients' (WorkloadConfig::closed_loop);
  // the unit-rate process, Poisson, only orders the workload's content.
  enum class Kind { kPoisson, kGamma, kBootstrap, kClosedLoop };
  Kind kind = Kind::kPoisson;
  double cv = 1.0;  // kGamma: coefficient of variation of the gaps (seed 003 §5.6: 1.9)
  // kBootstrap: measured gaps (any unit; rescaled to mean 1) and the block
  // length of the moving-block bootstrap, in gaps.
  std::vector<double> gaps;
  uint32_t block = 64;
  std::string source;  // where the gaps came from, for messages
};

// One gap at a time from the configured process, drawing only from `rng`.
class ArrivalProcess {
 public:
  // REQUIRES: kBootstrap has at least `block` gaps with a positive mean.
  ArrivalProcess(const ArrivalConfig& config, sim::RandomStream rng);

  // The next gap of the unit-rate process.
  double NextGap();

 private:
  double GammaGap();
  double BootstrapGap();

  ArrivalConfig config_;
  sim::RandomStream rng_;
  double shape_ = 1;  // kGamma: 1/cv^2, with scale cv^2 the mean is 1
  size_t block_pos_ = 0, block_left_ = 0;
};

// Gamma(shape, scale 1) by Marsaglia and Tsang (2000), with the boost
// U^(1/shape) for shape < 1. Consumes a variable number of draws from `rng`.
double GammaVariate(double shape, sim::RandomStream& rng);

// Reads inter-arrival gaps, one positive number per line ('#' comments and
// blank lines allowed). Throws std::runtime_error naming file and line.
std::vector<double> ReadGapsFile(const std::string& path);

// A piecewise-constant load multiplier over simulated time: factor f_i from
// the end of the previous step until until_s_i; the last factor holds after.
// Unit-rate time u maps to the simulated time t with ∫_0^t f = u / qps.
struct LoadStep {
  double until_s = 0;
  double factor = 1;  // > 0
};

class LoadSchedule {
 public:
  explicit LoadSchedule(std::vector<LoadStep> steps) : steps_(std::move(steps)) {}

  // Simulated seconds at which `scaled` seconds of constant-rate time have
  // elapsed. REQUIRES: calls in non-decreasing order of `scaled`.
  double Warp(double scaled);

 private:
  std::vector<LoadStep> steps_;
  size_t step_ = 0;
  double step_start_t_ = 0;  // simulated time at which step_ began
  double step_start_u_ = 0;  // constant-rate time at that point
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_ARRIVAL_PROCESS_H_
