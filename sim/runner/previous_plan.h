// The table an operator rolled out last time, read back for `kvroute plan
// --previous` so the new table keeps what it can of it (churn_aware
// replanning, seed 003 §3.2): every moved (key, destination) pair is cold
// until its first request there. Reads what `kvroute plan` writes, CSV or JSON.
#ifndef KVROUTE_SIM_RUNNER_PREVIOUS_PLAN_H_
#define KVROUTE_SIM_RUNNER_PREVIOUS_PLAN_H_

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvroute::sim {

// A previous plan that cannot be read; the message names the file, the line
// and the column (1-based) at fault.
class PlanFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PreviousPlan {
  std::vector<std::string> keys;                    // in file order, each once
  std::vector<std::vector<uint32_t>> destinations;  // per key, as written
};

// CSV: lines starting with '#' are skipped (the statistics line), then the
// header `key,rate,destinations` and rows `key,rate,d d ...`. JSON: an object
// whose "table" maps each key to a list of destinations. Destinations must be
// integers below `replicas`, at least one per key, none repeated; keys unique.
PreviousPlan ReadPreviousPlanCsv(std::istream& in, const std::string& source, uint32_t replicas);
PreviousPlan ReadPreviousPlanJson(std::istream& in, const std::string& source, uint32_t replicas);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_PREVIOUS_PLAN_H_
