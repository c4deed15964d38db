// A sweep spread over MPI ranks, master and workers. Rank 0 runs the sweep and
// hands out its points one at a time: to its own `--jobs` threads and to each
// other rank whenever one of that rank's threads is free (each rank announces
// its thread count once, and every result it sends back frees one). A rank
// whose points are slower simply gets fewer, so the ranks balance themselves.
// Rank 0 records each result as it arrives; which rank ran a point never
// changes its result, and results are stored by index, so the output is the
// same whatever the number of ranks and threads.
//
// Messages (MPI_COMM_WORLD): worker → 0 `hello` (its thread count) and
// `result` (index, then 'R' and the encoded point or 'E' and the error);
// 0 → worker `point` (index, policy, qps bits, seed) and `stop`. Every wait
// polls with a short sleep: MPI's blocking calls spin, which on a machine with
// more ranks and threads than cores takes the CPU from the simulations.
#ifndef KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_
#define KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_

#include <vector>

#include "sim/runner/mpi_world.h"
#include "sim/runner/point_executor.h"

namespace kvroute::sim {

// Rank 0's side. The constructor waits for every other rank's hello; the
// destructor tells them the sweep is over (unless an exception is unwinding:
// then the caller aborts every rank).
class MpiExecutor : public PointExecutor {
 public:
  MpiExecutor(MpiWorld world, unsigned jobs);
  ~MpiExecutor() override;
  void Run(const Scenario& scenario, std::span<const PointSpec> specs,
           const PointResultFn& on_result) override;
  unsigned workers() const override;

 private:
  MpiWorld world_;
  unsigned jobs_;
  std::vector<unsigned> threads_;  // per rank (rank 0: jobs_)
};

// The other ranks' side: says hello, then runs every point rank 0 sends on
// `jobs` threads and sends each result back, until rank 0 says stop. Throws
// if a point fails, after reporting the failure to rank 0.
void ServeMpiWorker(const Scenario& scenario, unsigned jobs);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_MPI_EXECUTOR_H_
