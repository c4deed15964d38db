#!/usr/bin/env python3
"""The comparison of docs/DISAGGREGATION.md: runs scenarios/disaggregation.yaml
aggregated and with each prefill:decode split of its eight GPUs, and prints the
Markdown tables: capacity per SLO (mean [95% CI] over the paired seeds) and each
split's capacity over the aggregated fleet's, paired by seed.

    scripts/disaggregation_table.py [path/to/kvroute] [--out DIR] [--reuse]
"""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402
from paper_results import Run  # noqa: E402
from paper_stats import paired_ratio  # noqa: E402

SCENARIO = ROOT / "scenarios/disaggregation.yaml"
GPUS = 8
SPLITS = [2, 3, 4]  # prefill replicas; the rest decode


def overrides(prefill):
    if prefill is None:
        return []
    return ["--set", "cluster.disaggregation={decider: always}", "--set",
            f"cluster.deployments=[{{name: prefill, role: prefill, replicas: {prefill}}}, "
            f"{{name: decode, role: decode, replicas: {GPUS - prefill}}}]"]


def label(prefill):
    return "aggregated (8)" if prefill is None else f"{prefill} prefill + {GPUS - prefill} decode"


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-disaggregation")
    runs = {}
    for prefill in [None] + SPLITS:
        path = out / f"{'aggregated' if prefill is None else f'prefill_{prefill}'}.h5"
        if not (args.reuse and path.exists()):
            subprocess.run([args.binary, "run", str(SCENARIO), *overrides(prefill), "--out",
                            str(path), "--force", "--jobs", "2", "--quiet"], check=True,
                           stdout=subprocess.DEVNULL)
        runs[prefill] = Run(str(path))
    base = runs[None]
    slos = [(float(r["threshold_s"]), r["label"].decode()) for r in base.slos]
    header = "| fleet | policy | " + " | ".join(f"`{text}`" for _, text in slos) + " |"
    print("Capacity, QPS: mean [95% CI] over the seeds\n")
    print(header)
    print("|" + "---|" * (2 + len(slos)))
    for prefill, run in runs.items():
        for policy in run.policies():
            cells = [run.cap(policy, threshold) for threshold, _ in slos]
            print(f"| {label(prefill)} | `{policy}` | " + " | ".join(cells) + " |")
    print("\nCapacity over the aggregated fleet's with the same policy, paired by seed\n")
    print(header)
    print("|" + "---|" * (2 + len(slos)))
    for prefill in SPLITS:
        run = runs[prefill]
        for policy in run.policies():
            cells = []
            for threshold, _ in slos:
                ratio = paired_ratio(run.seeds(policy, threshold), base.seeds(policy, threshold))
                cells.append(ratio.text(digits=2, unit="×"))
            print(f"| {label(prefill)} | `{policy}` | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
