#!/usr/bin/env bash
# Sets kvroute up on a Debian 12 machine and runs it: installs the Debian
# packages that are missing, builds in Release, then either runs the main job
# (`run`: kvroute run on the built-in quickstart) or the whole test suite
# (`test`). Safe to run again: it installs and rebuilds only what is needed.
#
#   scripts/bootstrap.sh run [extra kvroute run arguments]
#   scripts/bootstrap.sh test
set -euo pipefail

mode=${1:-run}
shift || true
case "$mode" in
  run | test) ;;
  *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."

packages=(
  build-essential cmake clang-format
  clang libclang-rt-14-dev # .ci/run's sanitizer and libFuzzer build
  libboost-random-dev libboost-program-options-dev libboost-math-dev
  libhdf5-dev libyaml-cpp-dev libspdlog-dev libgtest-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  python3-matplotlib python3-h5py python3-numpy python3-pandas
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

jobs=$(nproc)
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DKVROUTE_WERROR=ON \
  -DKVROUTE_BUILD_TESTS=ON -DKVROUTE_BUILD_BENCHMARKS=ON -DKVROUTE_MPI=ON >&2
cmake --build build/release -j"$jobs" >&2

if [ "$mode" = run ]; then
  exec ./build/release/kvroute run "$@"
fi
exec ctest --test-dir build/release --output-on-failure -j"$jobs"
