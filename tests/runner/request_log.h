// A request recorder for tests: keeps every request's record, in the order
// the simulation reports them.
#ifndef KVROUTE_TESTS_RUNNER_REQUEST_LOG_H_
#define KVROUTE_TESTS_RUNNER_REQUEST_LOG_H_

#include <vector>

#include "analysis/request_record.h"

namespace kvroute::sim {

struct Records : analysis::RequestRecorder {
  void OnRequest(const analysis::RequestRecord& r) override { all.push_back(r); }
  std::vector<analysis::RequestRecord> all;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_TESTS_RUNNER_REQUEST_LOG_H_
