#include "sim/runner/validation/efficiency_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace kvroute::sim {
namespace {

struct Parameter {
  const char* name;
  double models::GpuEfficiency::*field;
  bool fraction;  // in (0, 1]: fitted through a logit; else > 0 through a log
};

constexpr Parameter kParameters[] = {
    {"gemm_compute_16bit", &models::GpuEfficiency::gemm_compute_16bit, true},
    {"gemm_compute_fp8", &models::GpuEfficiency::gemm_compute_fp8, true},
    {"weight_bandwidth", &models::GpuEfficiency::weight_bandwidth, true},
    {"kv_bandwidth", &models::GpuEfficiency::kv_bandwidth, true},
    {"attention_compute", &models::GpuEfficiency::attention_compute, true},
    {"link_bandwidth", &models::GpuEfficiency::link_bandwidth, true},
    {"allreduce_latency_s", &models::GpuEfficiency::allreduce_latency_s, false},
    {"layer_overhead_s", &models::GpuEfficiency::layer_overhead_s, false},
    {"eager_layer_overhead_s", &models::GpuEfficiency::eager_layer_overhead_s, false},
    {"step_overhead_s", &models::GpuEfficiency::step_overhead_s, false},
    {"sequence_overhead_s", &models::GpuEfficiency::sequence_overhead_s, false},
    {"frontend_latency_s", &models::GpuEfficiency::frontend_latency_s, false},
};

double ToFree(const Parameter& p, double v) {
  if (!p.fraction) return std::log(std::max(v, 1e-9));
  v = std::clamp(v, 1e-6, 1 - 1e-6);
  return std::log(v / (1 - v));
}

double FromFree(const Parameter& p, double x) {
  return p.fraction ? 1 / (1 + std::exp(-x)) : std::exp(x);
}

}  // namespace

double FitLoss(const std::vector<ValidationRow>& rows) {
  double total = 0;
  int metrics = 0;
  for (MeasuredMetric metric : kHeadlineMetrics) {
    double sum = 0;
    int n = 0;
    for (const ValidationRow& row : rows) {
      for (const Prediction& p : row.predictions) {
        if (p.measured.metric != metric || !FittedValue(row.experiment, p.measured)) continue;
        // A prediction without data (nothing completed) counts as a large error.
        sum += std::isfinite(p.predicted_ms) && p.predicted_ms > 0
                   ? std::abs(std::log(p.predicted_ms / p.measured.ms))
                   : 5.0;
        ++n;
      }
    }
    if (n == 0) continue;
    total += sum / n;
    ++metrics;
  }
  return metrics > 0 ? total / metrics : 0;
}

FitResult FitEfficiency(const std::vector<MeasuredExperiment>& experiments,
                        const models::GpuEfficiency& start, const std::vector<std::string>& fixed,
                        const ReplayOptions& options, unsigned jobs, int max_evaluations,
                        std::ostream* log) {
  std::vector<const Parameter*> free;
  for (const Parameter& p : kParameters) {
    if (std::find(fixed.begin(), fixed.end(), p.name) == fixed.end()) free.push_back(&p);
  }
  const size_t n = free.size();
  std::vector<MeasuredExperiment> trial = experiments;
  int evaluations = 0;
  auto efficiency_at = [&](const std::vector<double>& x) {
    models::GpuEfficiency e = start;
    for (size_t i = 0; i < n; ++i) e.*(free[i]->field) = FromFree(*free[i], x[i]);
    return e;
  };
  auto loss_at = [&](const std::vector<double>& x) {
    const models::GpuEfficiency e = efficiency_at(x);
    for (MeasuredExperiment& t : trial) t.profile.gpu.efficiency = e;
    ++evaluations;
    return FitLoss(RunValidation(trial, options, jobs));
  };

  // Nelder–Mead (standard coefficients), restarted around the best point
  // until a restart no longer improves it.
  std::vector<double> best(n);
  for (size_t i = 0; i < n; ++i) best[i] = ToFree(*free[i], start.*(free[i]->field));
  double best_loss = loss_at(best);
  for (int restart = 0; restart < 4 && evaluations < max_evaluations; ++restart) {
    std::vector<std::vector<double>> simplex(n + 1, best);
    std::vector<double> f(n + 1, best_loss);
    for (size_t i = 0; i < n; ++i) {
      simplex[i + 1][i] += 0.4;
      f[i + 1] = loss_at(simplex[i + 1]);
    }
    const double before = best_loss;
    while (evaluations < max_evaluations) {
      std::vector<size_t> order(n + 1);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
      if (f[order[n]] - f[order[0]] < 1e-5) break;
      std::vector<double> centroid(n, 0);
      for (size_t k = 0; k < n; ++k) {
        for (size_t i = 0; i < n; ++i) centroid[i] += simplex[order[k]][i] / n;
      }
      auto along = [&](double t) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; ++i) {
          x[i] = centroid[i] + t * (simplex[order[n]][i] - centroid[i]);
        }
        return x;
      };
      const size_t worst = order[n];
      std::vector<double> r = along(-1);
      const double fr = loss_at(r);
      if (fr < f[order[0]]) {
        std::vector<double> e = along(-2);
        const double fe = loss_at(e);
        if (fe < fr) {
          simplex[worst] = e, f[worst] = fe;
        } else {
          simplex[worst] = r, f[worst] = fr;
        }
      } else if (fr < f[order[n - 1]]) {
        simplex[worst] = r, f[worst] = fr;
      } else {
        std::vector<double> c = along(fr < f[worst] ? -0.5 : 0.5);
        const double fc = loss_at(c);
        if (fc < std::min(fr, f[worst])) {
          simplex[worst] = c, f[worst] = fc;
        } else {
          for (size_t k = 1; k <= n; ++k) {
            for (size_t i = 0; i < n; ++i) {
              simplex[order[k]][i] =
                  simplex[order[0]][i] + 0.5 * (simplex[order[k]][i] - simplex[order[0]][i]);
            }
            f[order[k]] = loss_at(simplex[order[k]]);
          }
        }
      }
      const size_t top = static_cast<size_t>(std::min_element(f.begin(), f.end()) - f.begin());
      if (f[top] < best_loss) {
        best_loss = f[top];
        best = simplex[top];
        if (log) {
          char line[96];
          std::snprintf(line, sizeof line, "  evaluation %4d: loss %.4f\n", evaluations, best_loss);
          *log << line << std::flush;
        }
      }
    }
    if (before - best_loss < 1e-4) break;
  }
  return FitResult{efficiency_at(best), best_loss, experiments.size(), evaluations};
}

void PrintEfficiencyYaml(std::ostream& out, const models::GpuEfficiency& e,
                         const std::string& fitted_on) {
  out << "efficiency:\n  fitted_on: " << fitted_on << "\n";
  for (const Parameter& p : kParameters) {
    char line[96];
    std::snprintf(line, sizeof line, "  %s: %.4g\n", p.name, e.*p.field);
    out << line;
  }
}

}  // namespace kvroute::sim
