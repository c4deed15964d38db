#include "sim/runner/experiment.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace kvroute::sim {

std::vector<PointSpec> SweepPoints(const Scenario& scenario) {
  std::vector<PointSpec> points;
  for (size_t p = 0; p < scenario.policies.size(); ++p) {
    for (double qps : scenario.qps) {
      for (uint64_t seed : scenario.SeedList()) points.push_back(PointSpec{p, qps, seed});
    }
  }
  return points;
}

analysis::SweepResults RunSweep(const Scenario& scenario, const SweepOptions& options) {
  std::vector<PointSpec> specs = SweepPoints(scenario);
  analysis::SweepResults results;
  results.slos = scenario.slos;
  results.points.resize(specs.size());

  std::atomic<size_t> next{0};
  std::mutex report_mutex;
  size_t done = 0;
  std::exception_ptr failure;
  auto worker = [&] {
    for (size_t i = next++; i < specs.size(); i = next++) {
      try {
        results.points[i] = RunPoint(scenario, specs[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(report_mutex);
        if (!failure) failure = std::current_exception();
        next = specs.size();
        return;
      }
      std::lock_guard<std::mutex> lock(report_mutex);
      ++done;
      if (options.on_point) options.on_point(done, specs.size(), results.points[i]);
    }
  };
  unsigned threads =
      std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(specs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  analysis::ComputeCapacityAndSummary(scenario.reference_qps, &results);
  return results;
}

}  // namespace kvroute::sim
