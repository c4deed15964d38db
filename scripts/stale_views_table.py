#!/usr/bin/env python3
"""The delay sweep of docs/POLICIES.md, "Stale cache views": runs
scenarios/stale_kv_events.yaml once per cluster.kv_events.delay_s and prints
the Markdown table (capacity, and at the reference load: hit rate, p99 TTFT and
how often the routers' view of the caches was wrong).

    scripts/stale_views_table.py [path/to/kvroute] [--out DIR]
"""
import pathlib
import subprocess
import sys

import h5py
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402

SCENARIO = ROOT / "scenarios/stale_kv_events.yaml"
# (delay_s, loss): the delay sweep, then one lossy case.
CASES = [("0", "0"), ("0.01", "0"), ("0.1", "0"), ("1", "0"), ("10", "0"), ("0.1", "0.2")]


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def rows(path):
    with h5py.File(path, "r") as f:
        points, summary, capacity = f["points"][()], f["summary"][()], f["capacity"][()]
    for s in summary:
        policy = text(s["policy"])
        ref = s["reference_qps"]
        at = points[(np.char.decode(points["policy"].astype("S")) == policy) & (points["qps"] == ref)]
        seeds = capacity[np.char.decode(capacity["policy"].astype("S")) == policy]
        low = seeds["capacity_qps"]
        censored = " (≥, every seed passed the grid)" if seeds["right_censored"].all() else ""
        lookups = at["kv_view_lookups"].sum()
        yield policy, ref, {
            "capacity": f"{np.nanmean(low):.0f}{censored}",
            "hit": f"{100 * at['token_hit_rate'].mean():.1f}%",
            "p99": f"{at['ttft_p99_s'].mean():.3f} s",
            "over": f"{100 * at['kv_view_overestimated'].sum() / lookups:.2f}%",
            "under": f"{100 * at['kv_view_underestimated'].sum() / lookups:.2f}%",
            "error": f"{at['kv_view_error_blocks'].sum() / lookups:.2f}",
        }


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-stale-views")
    print("| delay_s | loss | policy | capacity, QPS | hit rate | p99 TTFT | view over"
          " | view under | mean error, blocks |")
    print("|---|---|---|---|---|---|---|---|---|")
    for delay, loss in CASES:
        path = out / f"delay_{delay}_loss_{loss}.h5"
        if not (args.reuse and path.exists()):
            subprocess.run([args.binary, "run", str(SCENARIO), "--set",
                            f"cluster.kv_events={{delay_s: {delay}, loss: {loss}}}", "--out",
                            str(path), "--jobs", "2", "--quiet"], check=True,
                           stdout=subprocess.DEVNULL)
        for policy, _, r in rows(path):
            print(f"| {delay} | {loss} | `{policy}` | {r['capacity']} | {r['hit']} | {r['p99']} |"
                  f" {r['over']} | {r['under']} | {r['error']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
