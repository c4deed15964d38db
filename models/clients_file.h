// A clients file (workload.clients, docs/WORKLOADS.md "Per-client arrivals"):
// per-client arrival windows as ServeGen publishes them (Xiang et al. 2025,
// github.com/alibaba/ServeGen, data/language/*/chunk-<client>-trace.csv;
// scripts/servegen_clients.py converts them). A CSV with the header
//   client,window_start_s,rate,cv,pattern,shape,scale
// and one row per client window: the client's mean rate over the window
// (requests/s), the inter-arrival CV, the fitted gap distribution (Gamma or
// Weibull; empty for an idle window, whose rate is 0) and its shape and scale.
// Lines starting with '#' and blank lines are comments.
//
// A client's rows are together and in time order. Every window has the same
// length, inferred from the smallest step between a client's consecutive
// windows; every window starts on one grid; a window a client does not list is
// idle for it. The file covers [first window start, last window end).
#ifndef KVROUTE_MODELS_CLIENTS_FILE_H_
#define KVROUTE_MODELS_CLIENTS_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kvroute::models {

struct ClientWindow {
  enum class Pattern { kIdle, kGamma, kWeibull };
  uint32_t index = 0;  // window number on the file's grid, from 0
  double rate = 0;     // requests per second; 0 for kIdle
  double cv = 0;       // the trace's inter-arrival CV, kept for reports
  Pattern pattern = Pattern::kIdle;
  double shape = 0;  // Gamma's a or Weibull's k (> 0 unless kIdle)
  double scale = 0;  // the fit's scale; rates come from `rate` instead
};

struct ClientSeries {
  uint64_t id = 0;                    // the file's client number (names its random stream)
  std::vector<ClientWindow> windows;  // the listed windows, by index
};

struct ClientsTable {
  std::string source;        // the file, for messages
  double first_start_s = 0;  // the grid's first window starts here
  double window_s = 0;       // every window's length
  uint32_t windows = 0;      // the grid's windows, so the file ends at first + windows × length
  std::vector<ClientSeries> clients;  // in file order

  double end_s() const { return first_start_s + windows * window_s; }
};

// Reads a clients file. Throws std::runtime_error naming the file, the line
// and the column of the first bad row.
ClientsTable ReadClientsFile(const std::string& path);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_CLIENTS_FILE_H_
