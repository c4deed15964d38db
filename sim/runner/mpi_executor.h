// A sweep spread over MPI ranks. Rank 0 runs the sweep: for each batch of
// points it sends the specs to every rank, runs its share (every size-th point) on its
// own threads, and receives the other ranks' results as each finishes, so it
// can record every point the moment it is done. Ranks above 0 serve batches
// until rank 0 sends the end. Which rank runs a point never changes its result.
#ifndef KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_
#define KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_

#include "sim/runner/mpi_world.h"
#include "sim/runner/point_executor.h"

namespace kvroute::sim {

// Rank 0's side. Its destructor tells the other ranks the sweep is over
// (unless an exception is unwinding: then the caller aborts every rank).
class MpiExecutor : public PointExecutor {
 public:
  MpiExecutor(MpiWorld world, unsigned jobs) : world_(world), jobs_(jobs) {}
  ~MpiExecutor() override;
  void Run(const Scenario& scenario, std::span<const PointSpec> specs,
           const PointResultFn& on_result) override;
  unsigned workers() const override { return jobs_ * static_cast<unsigned>(world_.size); }

 private:
  MpiWorld world_;
  unsigned jobs_;
};

// The other ranks' side: runs their share of each batch on `jobs` threads and
// sends each result to rank 0, until rank 0 ends the sweep. Throws if a point
// fails after reporting the failure to rank 0.
void ServeMpiWorker(const Scenario& scenario, MpiWorld world, unsigned jobs);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_
