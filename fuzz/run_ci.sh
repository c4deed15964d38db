#!/usr/bin/env bash
# CI's short fuzzing run: each harness of BUILD (a KVROUTE_FUZZ build) for
# SECONDS, on a copy of its seed corpus. A crash, leak, timeout or excess
# memory fails, naming the harness and printing the input in base64 — unless
# it is a known bug listed in fuzz/pending/known.txt (same harness, and the
# sanitizer's summary names the listed source location): those are reported
# and the run goes on.
#
#   fuzz/run_ci.sh BUILD SECONDS
set -euo pipefail
build=$1
seconds=$2
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

known_list=${KVROUTE_FUZZ_KNOWN:-fuzz/pending/known.txt}
# The known location of HARNESS's pending bug, if any.
known() { awk -v h="$1" '!/^#/ && $1 == h { print $2 }' "$known_list"; }

status=0
for fuzzer in "$build"/fuzz/fuzz_*; do
  name=${fuzzer##*/fuzz_}
  mkdir -p "$work/$name/corpus" "$work/$name/crashes"
  cp fuzz/corpus/"$name"/* "$work/$name/corpus/"
  # Fork mode keeps fuzzing past a crash, so a known bug cannot hide others.
  "$fuzzer" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/$name/crashes/" "$work/$name/corpus" >"$work/$name/log" 2>&1 || true
  runs=$(grep -o '^#[0-9]*' "$work/$name/log" | tail -1 | tr -d '#')
  echo "fuzz_$name: ${runs:-0} inputs in $seconds s" >&2
  location=$(known "$name")
  tolerated=0
  for crash in "$work/$name/crashes"/*; do
    [ -e "$crash" ] || continue
    summary=$("$fuzzer" -runs=1 -timeout=10 -rss_limit_mb=2048 "$crash" 2>&1 |
      grep -m1 -E 'SUMMARY|ERROR: libFuzzer' || true)
    if [ -n "$location" ] && [[ $summary == *"$location"* ]]; then
      tolerated=$((tolerated + 1))
      continue
    fi
    echo "fuzz_$name: ${summary:-$(basename "$crash")}" >&2
    echo "input (base64): $(base64 -w0 "$crash")" >&2
    status=1
  done
  if ((tolerated)); then
    echo "fuzz_$name: $tolerated input(s) hit the known bug at $location ($known_list)" >&2
  fi
done
exit $status
