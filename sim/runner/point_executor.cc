#include "sim/runner/point_executor.h"

#include <numeric>

#include "sim/runner/point_pool.h"

namespace kvroute::sim {

void ThreadExecutor::Run(const Scenario& scenario, std::span<const PointSpec> specs,
                         const PointResultFn& on_result) {
  std::vector<size_t> tags(specs.size());
  std::iota(tags.begin(), tags.end(), size_t{0});
  PointPool pool(scenario, {specs.begin(), specs.end()}, tags, jobs_);
  PointPool::Finished finished;
  while (pool.pending() > 0) {
    if (!pool.Next(&finished, std::chrono::milliseconds(100))) continue;
    if (finished.error) std::rethrow_exception(finished.error);
    on_result(finished.tag, std::move(finished.result));
  }
}

}  // namespace kvroute::sim
