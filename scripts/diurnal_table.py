#!/usr/bin/env python3
"""A day of traffic, autoscaled or static (docs/AUTOSCALING.md, "A day of traffic"): runs
scenarios/diurnal.yaml at its mean load with static fleets and with HPA on each signal at a few
targets, over paired seeds, and prints Markdown: per fleet the dollars and mean replicas billed
over the measured day, the day's p99 TTFT, the share of requests whose TTFT misses the SLO's
threshold and the hours whose p99 TTFT misses it (mean [95% CI] over the seeds).

Every fleet is billed by the same code: a static fleet is an autoscaler whose schedule holds its
count all day. Per-request records are summarised as each run ends and then deleted (a day is
about 500 MB of them); --reuse reads the summaries.

    scripts/diurnal_table.py [path/to/kvroute] [--out DIR] [--seeds N] [--reuse]
"""
import csv
import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402
from paper_stats import Stats  # noqa: E402
from residency_model import quantile  # noqa: E402

SCENARIO = ROOT / "scenarios/diurnal.yaml"
QPS = "40"  # the scenario's sweep.qps: the day's mean load
SLO_S = 2.0  # the scenario's SLO: p99 TTFT <= 2 s
MAX_REPLICAS = 16
DELAY_S = 120  # the scenario's provisioning_delay_s
STATIC = [8, 9, 10, 11]
AUTOSCALED = [("waiting", 2), ("kv_use", 0.25), ("kv_use", 0.5), ("ttft", 0.5), ("ttft", 1.0)]


def deployment(fleet):
    """The --set value of cluster.deployments for a fleet: ("static", n) or (signal, target)."""
    kind, value = fleet
    if kind == "static":
        scaler = f"signal: schedule, schedule: [{{at_s: 0, replicas: {value}}}], " \
                 f"initial_replicas: {value}"
        return f"cluster.deployments=[{{name: main, replicas: {value}, autoscale: {{{scaler}, " \
               f"provisioning_delay_s: {DELAY_S}}}}}]"
    scaler = f"signal: {kind}, target: {value}, min_replicas: 2, initial_replicas: 6"
    return f"cluster.deployments=[{{name: main, replicas: {MAX_REPLICAS}, autoscale: " \
           f"{{{scaler}, provisioning_delay_s: {DELAY_S}}}}}]"


def misses(path):
    """(share of measured requests whose TTFT exceeds the SLO, hours whose p99 TTFT does)."""
    by_hour, late, measured = {}, 0, 0
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        col = {name: i for i, name in enumerate(header)}
        for row in rows:
            if row[col["measured"]] != "1":
                continue
            ttft = float(row[col["ttft_s"]]) if row[col["ttft_s"]] else math.inf
            measured += 1
            late += ttft > SLO_S
            by_hour.setdefault(int(float(row[col["arrival_s"]]) // 3600), []).append(ttft)
    hours = sum(quantile(v, 0.99) > SLO_S for v in by_hour.values())
    return late / measured, hours


def run(binary, out, fleet, seed, reuse):
    """The run's summary, from --out when --reuse finds it."""
    name = f"{fleet[0]}{fleet[1]}_seed{seed}"
    summary = out / f"{name}.json"
    if reuse and summary.exists():
        return json.loads(summary.read_text())
    records = out / f"{name}.csv"
    point = subprocess.run([binary, "point", str(SCENARIO), "--policy", "least_loaded", "--qps",
                            QPS, "--seed", str(seed), "--json", "--requests", str(records),
                            "--set", deployment(fleet)], check=True, capture_output=True,
                           text=True)
    result = json.loads(point.stdout)
    stats = result["policy_stats"]
    late, hours = misses(records)
    records.unlink()
    kept = {"usd": stats["autoscale.main.usd"], "replicas": stats["autoscale.main.mean_replicas"],
            "changes": stats["autoscale.main.scale_ups"] + stats["autoscale.main.scale_downs"],
            "p99": result["ttft_p99_s"], "late": late, "hours": hours}
    summary.write_text(json.dumps(kept))
    return kept


def show(values, digits):
    """'mean [low, high]'; every quantity here is non-negative, so the interval is cut at 0."""
    if any(v is None or math.isinf(v) for v in values):
        return "∞"
    s = Stats(values)
    if math.isnan(s.half_width):
        return f"{s.mean:.{digits}f}"
    low, high = s.ci
    return f"{s.mean:.{digits}f} [{max(0.0, low):.{digits}f}, {high:.{digits}f}]"


def label(fleet):
    kind, value = fleet
    if kind == "static":
        return f"static, {value} replicas"
    unit = {"waiting": " requests", "kv_use": "", "ttft": " s (p90 of the last minute)"}[kind]
    return f"HPA on `{kind}`, target {value}{unit}"


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-diurnal", seeds=3)
    first_seed = 1  # the scenario's seed; paired seeds follow it
    fleets = [("static", n) for n in STATIC] + AUTOSCALED
    print(f"scenarios/diurnal.yaml at {QPS} QPS (the day's mean), least_loaded, {args.seeds} "
          f"paired seeds, mean [95% CI]; measured from 600 s to the end of the day.\n")
    print("| fleet | $ over the day | replicas billed | scale events | p99 TTFT, s | "
          f"requests over {SLO_S:g} s | hours with p99 over {SLO_S:g} s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fleet in fleets:
        runs = [run(args.binary, out, fleet, first_seed + s, args.reuse)
                for s in range(args.seeds)]
        col = {k: [r[k] for r in runs] for k in runs[0]}
        print(f"| {label(fleet)} | {show(col['usd'], 0)} | {show(col['replicas'], 2)} | "
              f"{show(col['changes'], 0)} | {show(col['p99'], 2)} | "
              f"{show([100 * v for v in col['late']], 2)}% | {show(col['hours'], 1)} |")


if __name__ == "__main__":
    main()
