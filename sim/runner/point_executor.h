// Where a sweep's points run: on threads of this process (ThreadExecutor) or
// spread over MPI ranks (mpi_executor.h). Either way each result comes back on
// the thread that called Run, so the sweep can record it there.
#ifndef KVROUTE_SIM_RUNNER_POINT_EXECUTOR_H_
#define KVROUTE_SIM_RUNNER_POINT_EXECUTOR_H_

#include <functional>
#include <span>

#include "sim/runner/cluster_simulation.h"

namespace kvroute::sim {

// (index into the specs, the point's result)
using PointResultFn = std::function<void(size_t, analysis::PointResult)>;

class PointExecutor {
 public:
  virtual ~PointExecutor() = default;
  // Runs every spec and calls `on_result` once per spec, on the calling
  // thread, in the order they finish. If a point or `on_result` throws, no
  // more points start and the exception propagates.
  virtual void Run(const Scenario& scenario, std::span<const PointSpec> specs,
                   const PointResultFn& on_result) = 0;
  // Threads (or ranks × threads) the points run on, for the report line.
  virtual unsigned workers() const = 0;
};

class ThreadExecutor : public PointExecutor {
 public:
  explicit ThreadExecutor(unsigned jobs) : jobs_(jobs) {}
  void Run(const Scenario& scenario, std::span<const PointSpec> specs,
           const PointResultFn& on_result) override;
  unsigned workers() const override { return jobs_; }

 private:
  unsigned jobs_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_POINT_EXECUTOR_H_
