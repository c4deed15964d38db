#include "sim/runner/mpi_world.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#if KVROUTE_HAVE_MPI
#include <mpi.h>
#endif

namespace kvroute::sim {
namespace {

bool LaunchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"}) {
    if (std::getenv(name)) return true;
  }
  // srun sets this for every task of a job step; one task needs no MPI.
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  return tasks && std::atoi(tasks) > 1;
}

}  // namespace

#if KVROUTE_HAVE_MPI

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!LaunchedByMpi()) return;
  int provided = 0;
  // Only the main thread of each rank calls MPI; worker threads only simulate.
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  initialised_ = true;
}

MpiSession::~MpiSession() {
  if (initialised_) MPI_Finalize();
}

MpiWorld CurrentWorld() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised) return {};
  MpiWorld world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

void AbortWorld(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

#else

MpiSession::MpiSession(int*, char***) {
  if (LaunchedByMpi()) {
    std::fprintf(stderr,
                 "kvroute: launched by mpirun or srun, but this build has no MPI "
                 "(KVROUTE_MPI=OFF): every rank would run the whole sweep\n");
    std::exit(2);
  }
}
MpiSession::~MpiSession() = default;
MpiWorld CurrentWorld() { return {}; }
void AbortWorld(int status) { std::exit(status); }

#endif

}  // namespace kvroute::sim
