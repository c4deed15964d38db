#!/usr/bin/env python3
"""Where cache affinity pays (docs/reproducing/AFFINITY_MAP.md): CacheRoute's capacity over
Flat-LB's and over CHWBL's, paired by seed, across output length × the tail of each prompt's
own (unshared) part, on the paper's win workload (scenarios/paper/regime_win.yaml: 30
Llama-3.1-8B destinations, 4,096-token system prompts, a 10% whale). Each cell is another
workload, so CacheRoute's q_cap and W are recalibrated for it (`kvroute calibrate`, the rule of
docs/REPRODUCING.md). Prints Markdown.

    scripts/affinity_map.py [path/to/kvroute] [--out DIR] [--seeds N] [--reuse]
"""
import math
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from experiment_args import experiment_args  # noqa: E402
from paper_results import Run  # noqa: E402
from paper_stats import paired_ratio  # noqa: E402

SCENARIO = ROOT / "scenarios/paper/regime_win.yaml"
OUTPUT_MEDIANS = [50, 200, 800]  # tokens; the win workload's own is 200
TAIL_SIGMAS = [0.4, 0.8, 1.6]    # lognormal sigma of a prompt's own tokens (median 128); own 0.8
PUBLISHED = 4.19                 # CacheRoute / Flat-LB at 3.5 s, the paper's flagship
SLO_S = 3.5
GRID = "[30, 60, 90, 120, 150, 180, 210, 240, 300, 360, 450, 600, 800, 1000, 1300]"


def cell_overrides(output, sigma, seeds):
    return ["--set", f"workload.output_tokens={{kind: lognormal, median: {output}, sigma: 0.5, "
                     "min: 1, max: 4000}",
            "--set", f"workload.prompt.new_tokens={{kind: lognormal, median: 128, sigma: {sigma}, "
                     "min: 16, max: 32768}",
            "--set", f"seeds={seeds}", "--set", f"sweep.qps={GRID}",
            "--set", "sweep.precision_qps=1", "--set", "sweep.precision_share=0.02"]


def run_cell(binary, out, output, sigma, seeds, reuse):
    name = f"out{output}_sigma{sigma}"
    path = out / f"{name}.h5"
    sets = cell_overrides(output, sigma, seeds)
    stats_path = out / f"{name}.workload.txt"
    if not (reuse and path.exists() and stats_path.exists()):
        calibration = subprocess.run([binary, "calibrate", str(SCENARIO), *sets], check=True,
                                     capture_output=True, text=True).stdout
        entry = re.search(r"^as a policy entry: \{(.*)\}$", calibration, re.M).group(1)
        subprocess.run([binary, "run", str(SCENARIO), *sets, "--set",
                        f"policies=[flat_lb, chwbl, {{{entry}, interval_s: 3600}}]", "--out",
                        str(path), "--force", "--jobs", "2", "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        stats_path.write_text(subprocess.run([binary, "workload-stats", str(SCENARIO), *sets],
                                             check=True, capture_output=True, text=True).stdout)
    ideal = re.search(r"ideal[^\n]*?([0-9.]+)%", stats_path.read_text())
    return Run(str(path)), (float(ideal.group(1)) if ideal else float("nan"))


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-affinity-map", seeds=3)
    cells = {(o, s): run_cell(args.binary, out, o, s, args.seeds, args.reuse)
             for o in OUTPUT_MEDIANS for s in TAIL_SIGMAS}
    reference = cells[(200, 0.8)][0].reference_qps()
    band = (PUBLISHED / 1.5, PUBLISHED * 1.5)
    print(f"{args.seeds} paired seeds per cell; capacity at p99 TTFT ≤ {SLO_S:g} s, bisected to "
          f"1 QPS or 2%; ratios paired by seed, mean [95% CI]. ★: the CI reaches the paper's "
          f"band for CacheRoute / Flat-LB, {band[0]:.2f}–{band[1]:.2f}× (4.19× ×/÷ 1.5).\n")
    for title, den in (("CacheRoute / Flat-LB", "flat_lb"), ("CacheRoute / CHWBL", "chwbl")):
        print(f"{title} (rows: median output tokens; columns: sigma of a prompt's own tokens)\n")
        print("| output \\ tail | " + " | ".join(f"σ = {s:g}" for s in TAIL_SIGMAS) + " |")
        print("|---|" + "---:|" * len(TAIL_SIGMAS))
        for o in OUTPUT_MEDIANS:
            row = []
            for s in TAIL_SIGMAS:
                run = cells[(o, s)][0]
                ratio = paired_ratio(run.seeds("cacheroute", SLO_S), run.seeds(den, SLO_S))
                text = ratio.text(digits=2, unit="×")
                half = 0 if math.isnan(ratio.half_width) else ratio.half_width
                if den == "flat_lb" and ratio.n and ratio.mean + half >= band[0] and \
                        ratio.mean - half <= band[1]:
                    text += " ★"
                row.append(text)
            print(f"| {o} | " + " | ".join(row) + " |")
        print()
    print(f"Hit-rate headroom: token hit rate at {reference:g} QPS, Flat-LB / CHWBL / CacheRoute, "
          "and the ideal (infinite cache) hit rate `workload-stats` reports\n")
    print("| output \\ tail | " + " | ".join(f"σ = {s:g}" for s in TAIL_SIGMAS) + " |")
    print("|---|" + "---:|" * len(TAIL_SIGMAS))
    for o in OUTPUT_MEDIANS:
        row = []
        for s in TAIL_SIGMAS:
            run, ideal = cells[(o, s)]
            hits = [run.per_seed(p, reference, "token_hit_rate") for p in
                    ("flat_lb", "chwbl", "cacheroute")]
            means = [100 * sum(h.values()) / len(h) if h else float("nan") for h in hits]
            row.append(" / ".join(f"{m:.0f}" for m in means) + f" (ideal {ideal:.0f}%)")
        print(f"| {o} | " + " | ".join(row) + " |")
    print("\nCapacities, QPS (Flat-LB / CHWBL / CacheRoute)\n")
    print("| output \\ tail | " + " | ".join(f"σ = {s:g}" for s in TAIL_SIGMAS) + " |")
    print("|---|" + "---:|" * len(TAIL_SIGMAS))
    for o in OUTPUT_MEDIANS:
        row = [" / ".join(cells[(o, s)][0].cap(p, SLO_S) for p in ("flat_lb", "chwbl",
                                                                     "cacheroute"))
               for s in TAIL_SIGMAS]
        print(f"| {o} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
