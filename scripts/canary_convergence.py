#!/usr/bin/env python3
"""How long the canary of seed 000 takes to reach its split (docs/reproducing/CANARY_SHIFTING.md):
scenarios/paper/canary.yaml (λ_h = 10, weights 1 : 9 from 120 s) run for six hours over paired
seeds, and prints Markdown: B's share of the requests per half hour (mean [95% CI] over the
seeds) and over the last hour, against the 90% its weight asks for, with the verdict of
analysis/paper_stats.py's rule on the last hour.

    scripts/canary_convergence.py [path/to/kvroute] [--out DIR] [--seeds N] [--reuse]
"""
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402
from paper_claims import value_claims  # noqa: E402
from paper_stats import Stats  # noqa: E402

SCENARIO = ROOT / "scenarios/paper/canary.yaml"
DURATION_S, BUCKET_S, LAST_S = 21600, 1800, 3600
FIRST_SEED = 901  # the scenario's seed; paired seeds follow it


def shares(binary, out, seed, reuse):
    """B's share of the requests arriving in each half hour, and in the last hour."""
    path = out / f"seed{seed}.json"
    if not (reuse and path.exists()):
        result = subprocess.run([binary, "point", str(SCENARIO), "--policy", "sglang_cache_aware",
                                 "--qps", "60", "--seed", str(seed), "--set",
                                 f"duration_s={DURATION_S}", "--json"], check=True,
                                capture_output=True, text=True).stdout
        path.write_text(result)
    rows = json.loads(path.read_text())["deployment_series"]
    counts = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        b = 1 if r["deployment_name"] == "B" else 0
        if r["start_s"] < DURATION_S:
            counts[int(r["start_s"] // BUCKET_S)][b] += r["requests"]
        if DURATION_S - LAST_S <= r["start_s"] < DURATION_S:
            counts["last"][b] += r["requests"]
    return {k: 100 * v[1] / (v[0] + v[1]) for k, v in counts.items() if v[0] + v[1]}


def text(values):
    s = Stats(values)
    return f"{s.mean:.1f}% [{s.ci[0]:.1f}, {s.ci[1]:.1f}]"


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-canary-convergence", seeds=5)
    runs = [shares(args.binary, out, FIRST_SEED + s, args.reuse) for s in range(args.seeds)]
    print(f"B's share of the requests, λ_h = 10, weights 1 : 9 from 120 s, {args.seeds} seeds, "
          "mean [95% CI]:\n")
    print("| arrival | B's share |")
    print("|---|---:|")
    for bucket in range(DURATION_S // BUCKET_S):
        label = f"{bucket * BUCKET_S / 3600:g}–{(bucket + 1) * BUCKET_S / 3600:g} h"
        print(f"| {label} | {text([r[bucket] for r in runs])} |")
    print(f"| last hour | {text([r['last'] for r in runs])} |\n")
    print(value_claims([(f"B's share of the requests converges to 90% (the last hour of "
                         f"{DURATION_S // 3600} h)", Stats([r["last"] for r in runs]), 90.0, "%")]),
          end="")


if __name__ == "__main__":
    main()
