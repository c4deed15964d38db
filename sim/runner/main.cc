#include <unistd.h>

#include <iostream>

#include "sim/core/huge_page_heap.h"
#include "sim/runner/cli.h"
#include "sim/runner/mpi_world.h"

int main(int argc, char** argv) {
  // Waiting requests' block hashes fill hundreds of MiB on an overloaded
  // point; huge pages make that several times cheaper to fault in
  // (docs/PERFORMANCE.md, "Huge pages").
  kvroute::sim::BackHeapWithHugePages(std::size_t{1} << 30);
  // MPI is initialised only when mpirun or srun launched this process.
  kvroute::sim::MpiSession mpi(&argc, &argv);
  return kvroute::sim::RunCli(argc, argv, std::cout, std::cerr, isatty(STDERR_FILENO) == 1);
}
