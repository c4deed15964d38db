#!/usr/bin/env bash
# Regenerates the point codec's seed corpus (fuzz/corpus/point_codec/) from the
# records of two short sweeps' partial files: one deployment with two
# policies, and a canary with several deployments. Run it whenever the point
# fields change (the records' magic names the layout; a test says when).
#
#   fuzz/make_codec_corpus.sh KVROUTE
set -euo pipefail
kvroute=$(realpath "$1")
cd "$(dirname "$0")/.."
python=${KVROUTE_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
short=(--quiet --seeds 1 --set duration_s=30 --set warmup_s=5 --set drain_s=10)
"$kvroute" run "${short[@]}" --policies flat_lb,cacheroute --set 'sweep.qps=[20, 40]' \
  --set sweep.reference_qps=20 --stop-after 3 --out "$work/one.h5" 2>/dev/null || true
"$kvroute" run scenarios/canary.yaml "${short[@]}" --policies sglang_cache_aware \
  --set 'sweep.qps=[20]' --stop-after 1 --out "$work/canary.h5" 2>/dev/null || true
rm -f fuzz/corpus/point_codec/*
"$python" - "$work/one.h5.partial" "$work/canary.h5.partial" <<'PY'
import sys
import h5py
n = 0
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        for record in f["point_records"][()]:
            with open("fuzz/corpus/point_codec/record%d" % n, "wb") as out:
                out.write(record)
            n += 1
print("wrote %d records to fuzz/corpus/point_codec/" % n)
PY
