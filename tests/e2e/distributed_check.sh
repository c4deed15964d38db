#!/usr/bin/env bash
# Runs one sweep several ways and checks they write the same results (every
# dataset and attribute of the HDF5 file but when, where and how it was
# written, and the same tables):
#   1. one process, --jobs 2; then the command line stored in its file, run
#      again by the shell (it must replay to the same file);
#   2. with KVROUTE_CHECK_MPI=1 (needs an MPI build and mpirun): mpirun -np 2,
#      one thread per rank, whose ranks also write the same per-request records
#      (--requests) as the one process did; then mpirun -np 2 stopped by --stop-after part-way
#      (rank 0 fails while rank 1 is busy: every rank must stop), and the same
#      sweep resumed with mpirun -np 3 and --resume;
#   3. one process killed with SIGKILL part-way, then run again with --resume.
#
#   tests/e2e/distributed_check.sh KVROUTE [kvroute run arguments...]
set -euo pipefail
kvroute=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
python=${KVROUTE_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

tables() { sed '/^wrote /d' "$1"; }
same() {
  "$python" "$here/same_results.py" reference.h5 "$1.h5"
  diff <(tables reference.txt) <(tables "$1.txt")
  echo "$1: same results as one process" >&2
}

start=$(date +%s)
mkdir requests_one requests_mpi
"$kvroute" run "$@" --quiet --jobs 2 --requests requests_one --out reference.h5 >reference.txt
echo "one process, --jobs 2: $(($(date +%s) - start)) s; $(tail -1 reference.txt)" >&2

stored=$("$python" -c 'import h5py, sys
print(h5py.File(sys.argv[1])["provenance/command_line"][()].decode())' reference.h5)
mkdir replayed
mv reference.h5 replayed/reference.h5
eval "$stored" >replay.txt
mv reference.h5 replay.h5
mv replayed/reference.h5 reference.h5
same replay

if [ "${KVROUTE_CHECK_MPI:-0}" = 1 ]; then
  if ! command -v mpirun >/dev/null; then
    echo "KVROUTE_CHECK_MPI=1 but there is no mpirun (Debian: openmpi-bin)" >&2
    exit 1
  fi
  mpi=(mpirun --oversubscribe)
  if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi
  start=$(date +%s)
  "${mpi[@]}" -np 2 "$kvroute" run "$@" --quiet --jobs 1 --requests requests_mpi --out mpi.h5 \
    </dev/null >mpi.txt
  echo "mpirun -np 2: $(($(date +%s) - start)) s" >&2
  same mpi
  if [ -z "$(ls requests_one)" ] || ! diff -r requests_one requests_mpi >/dev/null; then
    echo "mpirun -np 2 --requests: the per-request records differ from one process's" >&2
    exit 1
  fi
  echo "mpi: the same per-request records as one process ($(ls requests_mpi | wc -l) files)" >&2

  if "${mpi[@]}" -np 2 "$kvroute" run "$@" --quiet --jobs 1 --stop-after 3 --out mpi_resumed.h5 \
    </dev/null >/dev/null 2>mpi_stopped.err; then
    echo "mpirun -np 2 --stop-after 3 exited 0" >&2
    exit 1
  fi
  if ! grep -q 'stopped after 3 points' mpi_stopped.err || [ -f mpi_resumed.h5 ]; then
    echo "mpirun -np 2 --stop-after 3 did not stop as expected:" >&2
    cat mpi_stopped.err >&2
    exit 1
  fi
  "${mpi[@]}" -np 3 "$kvroute" run "$@" --jobs 1 --resume --out mpi_resumed.h5 </dev/null \
    >mpi_resumed.txt 2>mpi_resumed.err
  grep -q 'resuming .* 3 points already done' mpi_resumed.err || {
    cat mpi_resumed.err >&2
    exit 1
  }
  same mpi_resumed
else
  echo "MPI comparison skipped (set KVROUTE_CHECK_MPI=1 with an MPI build to run it)" >&2
fi

# Killed once a few points are committed: the progress line of a point is
# printed after the point is in the partial file.
"$kvroute" run "$@" --jobs 2 --out killed.h5 >/dev/null 2>killed.progress &
pid=$!
points=0
while kill -0 "$pid" 2>/dev/null && [ "$points" -lt 4 ]; do
  sleep 0.1
  points=$(grep -c '^\[' killed.progress || true)
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
if [ -f killed.h5 ]; then
  echo "the sweep finished before it could be killed; make it longer" >&2
  exit 1
fi
echo "killed after $points points were committed" >&2
"$kvroute" run "$@" --quiet --jobs 2 --resume --out killed.h5 >killed.txt
same killed
