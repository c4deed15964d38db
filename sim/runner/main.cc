#include <unistd.h>

#include <iostream>

#include "sim/runner/cli.h"
#include "sim/runner/mpi_world.h"

int main(int argc, char** argv) {
  // MPI is initialised only when mpirun or srun launched this process.
  kvroute::sim::MpiSession mpi(&argc, &argv);
  return kvroute::sim::RunCli(argc, argv, std::cout, std::cerr, isatty(STDERR_FILENO) == 1);
}
