#include "sim/runner/point_executor.h"

#include <algorithm>

#include "sim/runner/point_pool.h"

namespace kvroute::sim {

void ThreadExecutor::Run(const Scenario& scenario, std::span<const PointSpec> specs,
                         const PointResultFn& on_result) {
  if (specs.empty()) return;
  PointPool pool(scenario, std::min<unsigned>(jobs_, static_cast<unsigned>(specs.size())));
  for (size_t i = 0; i < specs.size(); ++i) pool.Submit(i, specs[i]);
  PointPool::Finished finished;
  while (pool.pending() > 0) {
    if (!pool.Next(&finished, std::chrono::milliseconds(100))) continue;
    if (finished.error) std::rethrow_exception(finished.error);
    on_result(finished.tag, std::move(finished.result));
  }
}

}  // namespace kvroute::sim
