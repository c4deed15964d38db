// Published capacities to draw beside kvroute's (`kvroute report --plots DIR
// --published FILE`): the values a paper reports, so that a reproduction's
// plot shows both. CSV with a header line, or YAML: a list of maps. Keys:
//   policy        a policy of the results file (required)
//   capacity_qps  the published capacity, > 0 (required)
//   slo           index of the SLO in the results file's /slos (default 0)
//   ci_low_qps, ci_high_qps   a published interval (both or neither)
//   source        where the value comes from, e.g. "paper Table 3" (legend)
// CSV cells are plain (no quoting); '#' starts a comment line.
#ifndef KVROUTE_ANALYSIS_PUBLISHED_VALUES_H_
#define KVROUTE_ANALYSIS_PUBLISHED_VALUES_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/sweep_results.h"

namespace kvroute::analysis {

struct PublishedValue {
  std::string policy;
  uint32_t slo = 0;
  double capacity_qps = 0;
  double ci_low_qps = NAN, ci_high_qps = NAN;
  std::string source;
};

// A file that cannot be read or names what the results lack; the message
// names the file, the line and the key.
class PublishedValuesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `path` (YAML if it ends in .yaml or .yml, else CSV) and checks it
// against `results`: every policy and SLO must be in them, each (policy, SLO)
// given once.
std::vector<PublishedValue> ReadPublishedValues(const std::string& path,
                                                const SweepResults& results);

// The values as the plot script reads them: a JSON list of objects with every
// key above (null for an interval not given).
std::string PublishedValuesJson(const std::vector<PublishedValue>& values);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_PUBLISHED_VALUES_H_
