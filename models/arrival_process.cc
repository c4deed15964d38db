#include "models/arrival_process.h"

#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

namespace kvroute::models {

double GammaVariate(double shape, sim::RandomStream& rng) {
  if (shape < 1) {
    // Gamma(a) = Gamma(a+1) * U^(1/a).
    double u = std::max(rng.Uniform(), 1e-300);
    return GammaVariate(shape + 1, rng) * std::pow(u, 1 / shape);
  }
  double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = rng.Normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    double u = rng.Uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(std::max(u, 1e-300)) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

ArrivalProcess::ArrivalProcess(const ArrivalConfig& config, sim::RandomStream rng)
    : config_(config), rng_(std::move(rng)), shape_(1 / (config.cv * config.cv)) {
  if (config_.kind == ArrivalConfig::Kind::kBootstrap) {
    double mean = std::accumulate(config_.gaps.begin(), config_.gaps.end(), 0.0) /
                  static_cast<double>(config_.gaps.size());
    for (double& g : config_.gaps) g /= mean;
  }
}

double ArrivalProcess::NextGap() {
  switch (config_.kind) {
    case ArrivalConfig::Kind::kPoisson:
    case ArrivalConfig::Kind::kClosedLoop:
      return rng_.Exponential(1.0);
    case ArrivalConfig::Kind::kGamma:
      return GammaVariate(shape_, rng_) / shape_;
    case ArrivalConfig::Kind::kBootstrap:
      return BootstrapGap();
  }
  return 1;
}

// Moving-block bootstrap (Künsch 1989): concatenate blocks of `block`
// consecutive measured gaps starting at uniform positions, so correlation
// within a block survives (seed 003 §5.6 resamples 22,639 measured gaps so).
double ArrivalProcess::BootstrapGap() {
  if (block_left_ == 0) {
    block_pos_ = rng_.UniformInt(config_.gaps.size() - config_.block + 1);
    block_left_ = config_.block;
  }
  --block_left_;
  return config_.gaps[block_pos_++];
}

std::vector<double> ReadGapsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open gaps file");
  std::vector<double> gaps;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    size_t used = 0;
    double gap = -1;
    try {
      gap = std::stod(line.substr(start), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || line.find_first_not_of(" \t\r", start + used) != std::string::npos ||
        !(gap >= 0) || !std::isfinite(gap)) {
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected one non-negative gap per line, got '" + line + "'");
    }
    gaps.push_back(gap);
  }
  return gaps;
}

double LoadSchedule::Warp(double scaled) {
  // Within a step of factor f, constant-rate time advances f times as fast as
  // simulated time.
  while (step_ + 1 < steps_.size()) {
    const LoadStep& s = steps_[step_];
    double u_end = step_start_u_ + (s.until_s - step_start_t_) * s.factor;
    if (scaled < u_end) break;
    step_start_u_ = u_end;
    step_start_t_ = s.until_s;
    ++step_;
  }
  if (steps_.empty()) return scaled;
  return step_start_t_ + (scaled - step_start_u_) / steps_[step_].factor;
}

}  // namespace kvroute::models
