#!/usr/bin/env bash
# A full disk at the final write of a sweep (issue 18) loses nothing: on a
# small tmpfs, a results file from an earlier run is left byte-identical, the
# sweep's .partial file survives, the error says "No space left on device",
# and once there is room again --resume writes the results.
#
# Needs root (or CAP_SYS_ADMIN) to mount the tmpfs; exits 77, which ctest
# reports as skipped, with a message where mounting is not allowed.
#
#   tests/e2e/disk_full_check.sh KVROUTE
set -euo pipefail
kvroute=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
python=${KVROUTE_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
mnt="$work/small_disk"
mkdir "$mnt"
cleanup() {
  umount "$mnt" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
if ! mount -t tmpfs -o size=8m tmpfs "$mnt" 2>"$work/mount.err"; then
  echo "skipped: cannot mount a tmpfs here ($(cat "$work/mount.err")); run as root to test a full disk" >&2
  exit 77
fi

# 3 policies x 2 loads x 1 seed = 6 points, no bisection.
sweep=(--seeds 1 --jobs 2 --set duration_s=40 --set warmup_s=10 --set drain_s=20
  --set 'sweep.qps=[60, 120]' --set sweep.reference_qps=60 --set sweep.precision_qps=0)

"$kvroute" run "${sweep[@]}" --out "$mnt/results.h5" >/dev/null 2>&1
cp "$mnt/results.h5" "$work/old.h5"

# The same sweep again, stopped once every point is in the partial file.
if "$kvroute" run "${sweep[@]}" --force --stop-after 6 --out "$mnt/results.h5" \
  >/dev/null 2>"$work/stopped.err"; then
  echo "the sweep was not stopped" >&2
  exit 1
fi
test -f "$mnt/results.h5.partial"

# Fill the disk, then let the resumed sweep reach its final write.
dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null || true
if "$kvroute" run "${sweep[@]}" --force --resume --out "$mnt/results.h5" >/dev/null \
  2>"$work/full.err"; then
  echo "the final write succeeded on a full disk" >&2
  exit 1
fi
grep "cannot write" "$work/full.err" >&2
grep -q "No space left on device" "$work/full.err"
grep -q "results.h5 is unchanged" "$work/full.err"
grep -q "kept in .*results.h5.partial" "$work/full.err"
cmp "$mnt/results.h5" "$work/old.h5"
test -f "$mnt/results.h5.partial"
if ls "$mnt" | grep -q '\.tmp'; then
  echo "a temporary file was left: $(ls "$mnt")" >&2
  exit 1
fi
echo "full disk: the old results are byte-identical and the partial file survives" >&2

# Room again: the partial file resumes to the results of an uninterrupted run.
rm "$mnt/filler"
"$kvroute" run "${sweep[@]}" --force --resume --out "$mnt/results.h5" >/dev/null \
  2>"$work/resumed.err"
grep -q "resuming .*: 6 points already done" "$work/resumed.err"
"$python" "$here/same_results.py" "$work/old.h5" "$mnt/results.h5"
echo "after freeing space, --resume writes the same results" >&2
