#include "models/client_arrivals.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "models/arrival_process.h"

namespace kvroute::models {
namespace {

// Simulated time of the grid's first window: file second `start_s` is time 0.
double Origin(const ClientsTable& table, double start_s) { return table.first_start_s - start_s; }

// The length of [a, b) ∩ [0, d).
double Overlap(double a, double b, double d) {
  return std::max(0.0, std::min(b, d) - std::max(a, 0.0));
}

}  // namespace

std::string ClientsCoverageError(const ClientsTable& table, double start_s, double duration_s) {
  // Rounding of the grid's sums must not refuse an exact fit.
  const double slack = 1e-9 * std::max(1.0, table.end_s());
  if (table.first_start_s > start_s + slack || table.end_s() < start_s + duration_s - slack) {
    std::ostringstream msg;
    msg << table.source << ": the run needs the clients' windows over [" << start_s << ", "
        << start_s + duration_s << ") s (start_s + duration_s), but the file covers only ["
        << table.first_start_s << ", " << table.end_s() << ") s";
    return msg.str();
  }
  return "";
}

ClientRates::ClientRates(const ClientsConfig& config, double qps, double duration_s)
    : origin_s_(Origin(*config.table, config.start_s)),
      window_s_(config.table->window_s),
      windows_(config.table->windows) {
  const ClientsTable& table = *config.table;
  if (std::string error = ClientsCoverageError(table, config.start_s, duration_s); !error.empty()) {
    throw std::invalid_argument(error);
  }
  rates_.assign(table.clients.size(), std::vector<double>(table.windows, 0.0));
  std::vector<double> totals(table.windows, 0.0);
  for (size_t c = 0; c < table.clients.size(); ++c) {
    for (const ClientWindow& w : table.clients[c].windows) {
      rates_[c][w.index] = w.rate;
      totals[w.index] += w.rate;
    }
  }
  // Requests over [0, duration_s), as the file has them.
  double requests = 0;
  for (uint32_t w = 0; w < table.windows; ++w) {
    requests += totals[w] * Overlap(WindowStart(w), WindowStart(w) + window_s_, duration_s);
  }
  if (!(requests > 0)) {
    std::ostringstream msg;
    msg << table.source << ": no client sends a request over [" << config.start_s << ", "
        << config.start_s + duration_s << ") s";
    throw std::invalid_argument(msg.str());
  }
  const double traced = qps * duration_s / requests;
  for (uint32_t w = 0; w < table.windows; ++w) {
    const double factor = config.aggregate == ClientsConfig::Aggregate::kTraced ? traced
                          : totals[w] > 0                                       ? qps / totals[w]
                                                                                : 0;
    for (std::vector<double>& client : rates_) client[w] *= factor;
  }
  client_shares_.assign(clients(), 0.0);
  double sum = 0;
  for (size_t c = 0; c < clients(); ++c) {
    for (uint32_t w = 0; w < table.windows; ++w) {
      client_shares_[c] +=
          rates_[c][w] * Overlap(WindowStart(w), WindowStart(w) + window_s_, duration_s);
    }
    sum += client_shares_[c];
  }
  for (double& share : client_shares_) share /= sum;
}

uint32_t ClientRates::WindowAt(double t) const {
  const double w = std::floor((t - origin_s_) / window_s_);
  const double last = static_cast<double>(windows() - 1);
  return static_cast<uint32_t>(std::clamp(w, 0.0, last));
}

ClientArrivals::ClientArrivals(const ClientRates& rates, const ClientSeries& series, size_t c,
                               double factor, double from_s, double end_s, sim::RandomStream rng)
    : rates_(&rates),
      client_(c),
      factor_(factor),
      end_s_(end_s),
      first_window_(rates.WindowAt(0)),
      rng_(std::move(rng)),
      window_(from_s < 0 ? int64_t{-1} : int64_t{rates.WindowAt(from_s)}),
      t_(from_s) {
  windows_.resize(rates.windows());
  for (const ClientWindow& w : series.windows) windows_[w.index] = w;
}

double ClientArrivals::RateOf(int64_t w) const {
  return factor_ * rates_->Rate(client_, w < 0 ? first_window_ : static_cast<uint32_t>(w));
}

double ClientArrivals::UnitGap(int64_t w) {
  const ClientWindow& window = windows_[w < 0 ? first_window_ : static_cast<size_t>(w)];
  const double shape = window.shape;
  if (window.pattern == ClientWindow::Pattern::kWeibull) {
    // Weibull(k) by inversion, over its mean Γ(1 + 1/k).
    return std::pow(-std::log1p(-rng_.Uniform()), 1 / shape) / std::tgamma(1 + 1 / shape);
  }
  return GammaVariate(shape, rng_) / shape;  // mean a, so a gap of mean 1
}

double ClientArrivals::Next() {
  const int64_t last = static_cast<int64_t>(windows_.size()) - 1;
  // The end of window w (the lead-in ends at time 0; the last window at end_s).
  auto end_of = [&](int64_t w) {
    return w < 0 ? 0.0 : w >= last ? end_s_ : rates_->WindowStart(static_cast<uint32_t>(w) + 1);
  };
  // After the lead-in comes the window of time 0.
  auto advance = [&] { window_ = window_ < 0 ? int64_t{first_window_} : window_ + 1; };
  while (t_ < end_s_ && !(RateOf(window_) > 0)) {  // idle windows send nothing
    t_ = end_of(window_);
    if (window_ >= last) return INFINITY;
    advance();
  }
  if (!(t_ < end_s_)) return INFINITY;
  double gap = UnitGap(window_);
  for (;;) {
    const double rate = RateOf(window_), end = end_of(window_);
    const double room = (end - t_) * rate;
    if (gap < room) {
      t_ += gap / rate;
      return t_ < end_s_ ? t_ : INFINITY;
    }
    gap -= room;
    t_ = end;
    if (window_ >= last || !(t_ < end_s_)) {
      t_ = end_s_;
      return INFINITY;
    }
    advance();
  }
}

ClientsProcess::ClientsProcess(const ClientsConfig& config, const KeyRateConfig& key_rates,
                               uint64_t seed, double qps, double duration_s, double factor,
                               double from_s)
    : rates_(config, qps, duration_s),
      qps_(qps),
      keys_per_client_(config.keys_per_client),
      key_shares_(models::KeyShares(config.keys_per_client, key_rates)),
      key_table_(key_shares_) {
  const ClientsTable& table = *config.table;
  arrivals_.reserve(table.clients.size());
  for (size_t c = 0; c < table.clients.size(); ++c) {
    // Streams named by the file's client number: adding or removing a client
    // moves no other client's arrivals or keys.
    const uint64_t id = table.clients[c].id;
    arrivals_.emplace_back(rates_, table.clients[c], c, factor, from_s, duration_s,
                           sim::RandomStream(seed, "workload.client_arrivals", id));
    key_rngs_.emplace_back(seed, "workload.client_keys", id);
    const double t = arrivals_.back().Next();
    if (std::isfinite(t)) due_.push({t, static_cast<uint32_t>(c)});
  }
}

bool ClientsProcess::Next(double* t, uint32_t* key) {
  if (due_.empty()) return false;
  const Due d = due_.top();
  due_.pop();
  *t = d.t;
  *key = d.client * keys_per_client_ + key_table_.Draw(key_rngs_[d.client]);
  const double next = arrivals_[d.client].Next();
  if (std::isfinite(next)) due_.push({next, d.client});
  return true;
}

std::vector<double> ClientsProcess::KeyShares() const {
  std::vector<double> shares;
  shares.reserve(rates_.clients() * keys_per_client_);
  for (double client : rates_.client_shares()) {
    for (double within : key_shares_) shares.push_back(client * within);
  }
  return shares;
}

void ClientsProcess::KeyLoadAt(double t, std::vector<double>* out) const {
  out->clear();
  const uint32_t w = rates_.WindowAt(std::max(t, 0.0));
  for (size_t c = 0; c < rates_.clients(); ++c) {
    for (double within : key_shares_) out->push_back(rates_.Rate(c, w) / qps_ * within);
  }
}

}  // namespace kvroute::models
