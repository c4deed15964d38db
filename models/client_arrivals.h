// Per-client arrivals (workload.clients; docs/WORKLOADS.md "Per-client
// arrivals (ServeGen)"): every client of a clients file (clients_file.h) is a
// tenant sending requests as its own renewal process in operational time.
//
// The point's load (QPS) sets the scale of the file's rates: kConstant scales
// every window so that the clients together send QPS (only the mix and the
// burstiness move, as ServeGen's generate_workload with a flat rate_fn,
// servegen/construct.py); kTraced applies one factor so that the mean total
// over [0, duration) is QPS, and the trace's daily shape survives.
//
// A client's gaps are unit-mean draws from its window's fitted distribution
// (Gamma(a)/a, or Weibull(k)/Γ(1+1/k)), and real time advances through the
// client's piecewise-constant rate λ(t) — a gap g ends where ∫λ = g, the time
// change of LoadSchedule::Warp (arrival_process.h). So a window sends rate ×
// length requests in expectation with the window's burstiness (CV 1/sqrt(a)
// for Gamma). A gap takes the shape of the window it starts in; windows of
// rate 0 pass without arrivals. ServeGen instead draws ceil(rate × length)
// gaps and rescales them to fill the window exactly.
#ifndef KVROUTE_MODELS_CLIENT_ARRIVALS_H_
#define KVROUTE_MODELS_CLIENT_ARRIVALS_H_

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "models/alias_table.h"
#include "models/clients_file.h"
#include "models/key_rates.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {

struct ClientsConfig {
  enum class Aggregate { kConstant, kTraced };
  std::string file;    // empty: no clients (the key-rate workload)
  double start_s = 0;  // the file's second that simulated time 0 maps to
  Aggregate aggregate = Aggregate::kConstant;
  uint32_t keys_per_client = 1;               // client c's keys are c × this + j
  std::shared_ptr<const ClientsTable> table;  // read when the scenario loads

  bool enabled() const { return table != nullptr; }
};

// Empty when `table` covers simulated [0, duration_s) from `start_s`, else
// what is missing ("... reaches only to 3600 s").
std::string ClientsCoverageError(const ClientsTable& table, double start_s, double duration_s);

// The clients' rates in simulated time, scaled to a load.
class ClientRates {
 public:
  // Throws std::invalid_argument when the file does not cover [0, duration_s)
  // or every rate in it is 0.
  ClientRates(const ClientsConfig& config, double qps, double duration_s);

  size_t clients() const { return rates_.size(); }
  uint32_t windows() const { return windows_; }
  // Client c's rate (requests/s) in grid window w, scaled to the load.
  double Rate(size_t c, uint32_t w) const { return rates_[c][w]; }
  // The grid window holding simulated time t (the first or last beyond them).
  uint32_t WindowAt(double t) const;
  double WindowStart(uint32_t w) const { return origin_s_ + w * window_s_; }
  double window_s() const { return window_s_; }
  // Each client's share of the requests over [0, duration_s); sums to 1.
  const std::vector<double>& client_shares() const { return client_shares_; }

 private:
  double origin_s_;  // simulated time at which grid window 0 starts
  double window_s_;
  uint32_t windows_;
  std::vector<std::vector<double>> rates_;  // [client][window]
  std::vector<double> client_shares_;
};

// One client's arrival times, in order.
class ClientArrivals {
 public:
  // Rates are `rates`' for client `c` times `factor` (e.g. sessions per
  // request); arrivals from `from_s` (before 0: a lead-in at the rate of time
  // 0) until `end_s`, exclusive.
  ClientArrivals(const ClientRates& rates, const ClientSeries& series, size_t c, double factor,
                 double from_s, double end_s, sim::RandomStream rng);

  // The next arrival time (s), or +infinity when none is left before end_s.
  double Next();

 private:
  double RateOf(int64_t w) const;  // w == -1: the lead-in
  double UnitGap(int64_t w);

  const ClientRates* rates_;
  size_t client_;
  double factor_;
  double end_s_;
  std::vector<ClientWindow> windows_;  // one per grid window (idle where the file lists none)
  uint32_t first_window_;              // the window of time 0, which the lead-in copies
  sim::RandomStream rng_;
  int64_t window_;  // the window t_ is in; -1: the lead-in before time 0
  double t_;
};

// All clients' arrivals merged in time order, each with a key of its client.
class ClientsProcess {
 public:
  // Session starts: `factor` times the clients' request rates.
  // REQUIRES: config.enabled(); `key_rates` spreads a client's traffic over
  // its keys_per_client keys.
  ClientsProcess(const ClientsConfig& config, const KeyRateConfig& key_rates, uint64_t seed,
                 double qps, double duration_s, double factor, double from_s);
  // Its clients' processes point at rates_.
  ClientsProcess(const ClientsProcess&) = delete;
  ClientsProcess& operator=(const ClientsProcess&) = delete;

  // The next arrival and its key; false when none is left. Ties go to the
  // client listed first.
  bool Next(double* t, uint32_t* key);

  // Each key's share of the requests over [0, duration_s).
  std::vector<double> KeyShares() const;
  // Each key's rate at t relative to the load (WorkloadGenerator::KeyLoadAt).
  void KeyLoadAt(double t, std::vector<double>* out) const;
  uint32_t TenantOf(uint32_t key) const { return key / keys_per_client_; }

 private:
  struct Due {
    double t;
    uint32_t client;
    bool operator>(const Due& o) const { return t != o.t ? t > o.t : client > o.client; }
  };

  ClientRates rates_;
  double qps_;
  uint32_t keys_per_client_;
  std::vector<double> key_shares_;  // within a client
  AliasTable key_table_;
  std::vector<ClientArrivals> arrivals_;
  std::vector<sim::RandomStream> key_rngs_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_CLIENT_ARRIVALS_H_
