// MPI, when kvroute was launched by mpirun or srun. MPI is initialised only
// when a launcher's environment is present (OMPI_COMM_WORLD_SIZE, PMIX_RANK,
// PMI_SIZE/PMI_RANK, or SLURM_STEP_NUM_TASKS > 1 from srun), so the plain
// binary runs without mpirun, and in a build without MPI (KVROUTE_MPI=OFF)
// everything here is a single process of rank 0.
#ifndef KVROUTE_SIM_RUNNER_MPI_WORLD_H_
#define KVROUTE_SIM_RUNNER_MPI_WORLD_H_

namespace kvroute::sim {

struct MpiWorld {
  int rank = 0;
  int size = 1;
};

// Owns MPI for the process's lifetime; create one in main().
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  [[maybe_unused]] bool initialised_ = false;  // unused without MPI
};

// This process's rank and the number of ranks ({0, 1} without MPI).
MpiWorld CurrentWorld();

// Ends every rank with `status`: after an error on one rank the others may be
// waiting for it and would never return.
[[noreturn]] void AbortWorld(int status);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_MPI_WORLD_H_
