#!/usr/bin/env python3
"""Seed 000's "a stable hit rate is not a stable latency" (docs/reproducing/SEED000.md): runs
scenarios/paper/canary_load.yaml with cluster.lambda_h = 0, 3 and 10, and with λ_h = 10 and the
deployments' load in the split (cluster.lambda_q 0.5 and 2, the remedy the seed proposes), over
paired seeds, with per-request records, and prints Markdown: per 10 s bucket (first seed) the new
deployment's share, each deployment's token hit rate and p99 TTFT for each λ_h; then, over the
seeds, the hit rate and the p99 TTFT of the minute after the shift (mean [95% CI]) for all.

    scripts/canary_latency.py [path/to/kvroute] [--out DIR] [--seeds N] [--reuse]
"""
import collections
import csv
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402
from paper_stats import Stats  # noqa: E402
from residency_model import quantile  # noqa: E402

SCENARIO = ROOT / "scenarios/paper/canary_load.yaml"
LAMBDAS = [0, 3, 10]
LOAD_LAMBDAS = [0.5, 2]  # cluster.lambda_q with λ_h = 10
SETTINGS = [(lam, 0) for lam in LAMBDAS] + [(10, q) for q in LOAD_LAMBDAS]
SHIFT_S, BUCKET_S, AFTER_S = 120, 10, 60
QPS = "140"  # the scenario's sweep.qps: the load before it doubles


def run(binary, out, lambda_h, lambda_q, seed, reuse):
    path = out / (f"lambda{lambda_h}_seed{seed}.csv" if lambda_q == 0 else
                  f"lambda{lambda_h}_q{lambda_q}_seed{seed}.csv")
    if not (reuse and path.exists()):
        subprocess.run([binary, "point", str(SCENARIO), "--policy", "sglang_cache_aware",
                        "--qps", QPS, "--seed", str(seed),
                        "--set", f"cluster.lambda_h={lambda_h}",
                        "--set", f"cluster.lambda_q={lambda_q}",
                        "--requests", str(path)], check=True, stdout=subprocess.DEVNULL)
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ttft(row):
    """TTFT in seconds; a request without a first token counts as infinitely late."""
    return float(row["ttft_s"]) if row["ttft_s"] else math.inf


def summary(rows):
    """(token hit rate, p99 TTFT, requests) of the rows; NaN without any."""
    prompt = sum(int(r["prompt_tokens"]) for r in rows)
    cached = sum(int(r["cached_tokens"]) for r in rows)
    p99 = quantile([ttft(r) for r in rows], 0.99) if rows else math.nan
    return (cached / prompt if prompt else math.nan), p99, len(rows)


def fmt_p99(x):
    return "∞" if math.isinf(x) else ("—" if math.isnan(x) else f"{x:.2f}")


def buckets_table(rows_by_lambda):
    print("Per 10 s of arrival, first seed: B's share of requests, token hit rate and p99 TTFT "
          "(s) of A and B.\n")
    header = "| arrival s |"
    for lam in LAMBDAS:
        header += f" λ_h={lam}: B share | hit A / B | p99 A / B |"
    print(header)
    print("|---:|" + "---:|---:|---:|" * len(LAMBDAS))
    for start in range(SHIFT_S - 2 * BUCKET_S, 300, BUCKET_S):
        line = f"| {start}–{start + BUCKET_S} |"
        for lam in LAMBDAS:
            mine = [r for r in rows_by_lambda[lam] if start <= float(r["arrival_s"]) < start +
                    BUCKET_S]
            by = collections.defaultdict(list)
            for r in mine:
                by[r["deployment"]].append(r)
            a, b = summary(by["A"]), summary(by["B"])
            share = b[2] / len(mine) if mine else math.nan
            hits = "/".join("—" if math.isnan(x[0]) else f"{100 * x[0]:.0f}%" for x in (a, b))
            line += f" {100 * share:.0f}% | {hits} | {fmt_p99(a[1])} / {fmt_p99(b[1])} |"
        print(line)


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-canary-latency", seeds=5)
    first_seed = 901  # the scenario's seed; paired seeds follow it
    records = {(setting, s): run(args.binary, out, *setting, first_seed + s, args.reuse)
               for setting in SETTINGS for s in range(args.seeds)}
    buckets_table({lam: records[((lam, 0), 0)] for lam in LAMBDAS})
    print(f"\nThe minute after the shift ({SHIFT_S}–{SHIFT_S + AFTER_S} s of arrival) and the "
          f"minute before it, {args.seeds} seeds, mean [95% CI]:\n")
    print("| λ_h, λ_q | hit rate before | hit rate after | p99 TTFT before, s | p99 TTFT after, s | "
          "A's p99 TTFT in the first 10 s after, s | B's share after |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for setting in SETTINGS:
        cols = collections.defaultdict(list)
        for s in range(args.seeds):
            rows = records[(setting, s)]
            before = [r for r in rows if SHIFT_S - AFTER_S <= float(r["arrival_s"]) < SHIFT_S]
            after = [r for r in rows if SHIFT_S <= float(r["arrival_s"]) < SHIFT_S + AFTER_S]
            for name, part in (("before", before), ("after", after)):
                hit, p99, _ = summary(part)
                cols["hit " + name].append(100 * hit)
                cols["p99 " + name].append(p99)
            cols["share"].append(100 * sum(r["deployment"] == "B" for r in after) / len(after))
            first_a = [r for r in after if r["deployment"] == "A" and
                       float(r["arrival_s"]) < SHIFT_S + BUCKET_S]
            cols["A first"].append(summary(first_a)[1])

        def show(values, unit=""):
            if any(math.isinf(v) for v in values):
                return f"∞ in {sum(math.isinf(v) for v in values)}/{len(values)} seeds"
            s = Stats(values)
            half = "" if math.isnan(s.half_width) else f" [{s.mean - s.half_width:.2f}, " \
                f"{s.mean + s.half_width:.2f}]"
            return f"{s.mean:.2f}{unit}{half}"
        print(f"| {setting[0]}, {setting[1]:g} | {show(cols['hit before'], '%')} | {show(cols['hit after'], '%')} | "
              f"{show(cols['p99 before'])} | {show(cols['p99 after'])} | "
              f"{show(cols['A first'])} | {show(cols['share'], '%')} |")


if __name__ == "__main__":
    main()
