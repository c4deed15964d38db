#include "sim/runner/progress.h"

#include <spdlog/sinks/ostream_sink.h>

#include <cmath>
#include <cstdio>

namespace kvroute::sim {

std::string FormatDuration(double seconds) {
  long s = std::lround(std::max(0.0, seconds));
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lds", s);
  }
  return buffer;
}

Progress::Progress(std::ostream& err, bool terminal, std::string slo_label)
    : err_(err),
      terminal_(terminal),
      slo_label_(std::move(slo_label)),
      start_(std::chrono::steady_clock::now()) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err, /*force_flush=*/true);
  lines_ = std::make_shared<spdlog::logger>("kvroute", sink);
  lines_->set_pattern("%v");
}

void Progress::OnPoint(size_t done, size_t known, const analysis::PointResult& p) {
  if (!terminal_) {
    lines_->info("[{}/{}] {:<12} qps {:<8g} seed {:<4} {} {:.3f} s  hit {:.1f}%", done, known,
                 p.policy, p.qps, p.seed, slo_label_, p.slo_values.empty() ? NAN : p.slo_values[0],
                 100 * p.token_hit_rate);
    return;
  }
  if (!drawn_) first_done_ = done - 1;
  drawn_ = true;
  // The ETA extrapolates the rate of the points run in this process; bisection
  // rounds still to come are not known yet, so it is a lower bound.
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double ran = static_cast<double>(done - first_done_);
  double eta = ran > 0 ? elapsed / ran * static_cast<double>(known - done) : 0;
  constexpr int kWidth = 30;
  int filled = known ? static_cast<int>(kWidth * done / known) : kWidth;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  char line[160];
  std::snprintf(line, sizeof line, "\r[%s] %zu/%zu points  %3.0f%%  elapsed %s  ETA %s   ",
                bar.c_str(), done, known, known ? 100.0 * done / known : 100.0,
                FormatDuration(elapsed).c_str(), FormatDuration(eta).c_str());
  err_ << line << std::flush;
}

void Progress::Finish() {
  if (terminal_ && drawn_) err_ << "\n" << std::flush;
}

}  // namespace kvroute::sim
