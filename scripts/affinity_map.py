#!/usr/bin/env python3
"""Where cache affinity pays (docs/reproducing/AFFINITY_MAP.md): CacheRoute's capacity over
Flat-LB's and over CHWBL's, paired by seed, across output length × the tail of each prompt's
own (unshared) part, and across the skew of key rates and the share of requests without a
shared prefix through the win workload's own cell, on the paper's win workload
(scenarios/paper/regime_win.yaml: 30 Llama-3.1-8B destinations, 4,096-token system prompts, a
10% whale). Each cell is another workload, so CacheRoute's q_cap and W are recalibrated for it
(`kvroute calibrate`, the rule of docs/REPRODUCING.md). Prints Markdown, and draws affinity_map.png into --out (both ratios as
maps, the cells whose CI reaches the paper's band outlined) when matplotlib is available.

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
from figures import pyplot  # noqa: E402
from paper_results import Run  # noqa: E402
from paper_stats import digits_near, paired_ratio  # noqa: E402
from paper_tables import workload_header  # noqa: E402

SCENARIO = ROOT / "scenarios/paper/regime_win.yaml"
OUTPUT_MEDIANS = [12, 25, 50, 200, 800]  # tokens; the win workload's own is 200
TAIL_SIGMAS = [0.4, 0.8, 1.6]  # lognormal sigma of a prompt's own tokens (median 128); own 0.8
# The two cross-sections through the win workload's own cell (200 output tokens, tail σ 0.8):
# the lognormal sigma of the key rates (its own 1.5; the 10% whale kept) and the share of
# sessions with nothing reusable (no_prefix_share; its own 0), the two knobs of §4's
# regime_mixed cells.
OWN_CELL = (200, 0.8)
OWN_SKEW = 1.5  # regime_win.yaml's rate_skew sigma
SKEW_SIGMAS = [0.5, OWN_SKEW, 2.5]
PREFIX_FREE_SHARES = [0, 0.25, 0.5]
# The paper's flagship at 3.5 s: CacheRoute / Flat-LB 176/42, / the best baseline 176/76.
PUBLISHED = {"flat_lb": 176 / 42, "chwbl": 176 / 76}
TOLERANCE = 1.5                  # the band of docs/REPRODUCING.md's verdict rule
SLO_S = 3.5
GRID = [30, 60, 90, 120, 150, 180, 210, 240, 300, 360, 450, 600, 800, 1000, 1300]
# With 12-token outputs capacities pass 2,000 QPS: the grid goes on, so that none is censored.
WIDE_GRID = GRID + [1700, 2200, 2800, 3600, 4600, 6000]


def cell_overrides(output, sigma, seeds, skew=OWN_SKEW, prefix_free=0):
    grid = WIDE_GRID if output < 50 else GRID
    sets = ["--set", f"workload.output_tokens={{kind: lognormal, median: {output}, sigma: 0.5, "
                     "min: 1, max: 4000}",
            "--set", f"workload.prompt.new_tokens={{kind: lognormal, median: 128, sigma: {sigma}, "
                     "min: 16, max: 32768}",
            "--set", f"seeds={seeds}", "--set", f"sweep.qps={grid}",
            "--set", "sweep.precision_qps=1", "--set", "sweep.precision_share=0.02"]
    if skew != OWN_SKEW:
        sets += ["--set", f"workload.rate_skew={{kind: lognormal, sigma: {skew}}}"]
    if prefix_free:
        sets += ["--set", f"workload.prompt.no_prefix_share={prefix_free}"]
    return sets


def cell_name(output, sigma, skew=OWN_SKEW, prefix_free=0):
    """The map's cells are out*_sigma*.h5 (scripts/regimes_figure.py reads them); the
    cross-sections' cells skew*.h5 and prefix_free*.h5 (the own cell is the map's)."""
    if skew != OWN_SKEW:
        return f"skew{skew}"
    if prefix_free:
        return f"prefix_free{prefix_free}"
    return f"out{output}_sigma{sigma}"


def calibrated_cacheroute(binary, sets, scenario=SCENARIO):
    """CacheRoute's policy entry with the q_cap and W `kvroute calibrate` gives the cell (or the
    workload of `scenario` with `sets`), and the paper's hourly replanning."""
    calibration = subprocess.run([binary, "calibrate", str(scenario), *sets], check=True,
                                 capture_output=True, text=True).stdout
    entry = re.search(r"^as a policy entry: \{(.*)\}$", calibration, re.M).group(1)
    return f"{{{entry}, interval_s: 3600}}"


def run_cell(binary, out, output, sigma, seeds, reuse, skew=OWN_SKEW, prefix_free=0):
    name = cell_name(output, sigma, skew, prefix_free)
    path = out / f"{name}.h5"
    sets = cell_overrides(output, sigma, seeds, skew, prefix_free)
    stats_path = out / f"{name}.workload.txt"
    if not (reuse and path.exists() and stats_path.exists()):
        cacheroute = calibrated_cacheroute(binary, sets)
        subprocess.run([binary, "run", str(SCENARIO), *sets, "--set",
                        f"policies=[flat_lb, chwbl, {cacheroute}]", "--out",
                        str(path), "--force", "--jobs", "2", "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        stats_path.write_text(subprocess.run([binary, "workload-stats", str(SCENARIO), *sets],
                                             check=True, capture_output=True, text=True).stdout)
    ideal = re.search(r"ideal[^\n]*?([0-9.]+)%", stats_path.read_text())
    return Run(str(path)), (float(ideal.group(1)) if ideal else float("nan"))


def ratios(cells, den):
    return {key: paired_ratio(run.seeds("cacheroute", SLO_S), run.seeds(den, SLO_S))
            for key, (run, _) in cells.items()}


def in_band(ratio, den):
    """True when the ratio's CI (its mean alone, with one seed) reaches the paper's band."""
    low, high = PUBLISHED[den] / TOLERANCE, PUBLISHED[den] * TOLERANCE
    lo, hi = ratio.ci if ratio.n >= 2 else (ratio.mean, ratio.mean)
    return bool(ratio.n) and hi >= low and lo <= high


def plot(cells, out):
    plt = pyplot()
    if plt is None:
        return
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.6))
    for ax, (title, den) in zip(axes, (("CacheRoute / Flat-LB", "flat_lb"),
                                       ("CacheRoute / CHWBL", "chwbl"))):
        r = ratios(cells, den)
        grid = [[r[(o, s)].mean for s in TAIL_SIGMAS] for o in OUTPUT_MEDIANS]
        image = ax.imshow(grid, cmap="RdBu", norm=LogNorm(vmin=1 / 3, vmax=3), origin="lower")
        for i, o in enumerate(OUTPUT_MEDIANS):
            for j, s in enumerate(TAIL_SIGMAS):
                ratio = r[(o, s)]
                lo, hi = ratio.ci
                dark = abs(math.log(ratio.mean)) > 0.6 if ratio.n else False
                ax.text(j, i, f"{ratio.mean:.2f}×\n[{lo:.2f}, {hi:.2f}]", ha="center",
                        va="center", fontsize=8, color="white" if dark else "black")
                if in_band(ratio, den):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, linewidth=3,
                                           edgecolor="black"))
        ax.set_xticks(range(len(TAIL_SIGMAS)), [f"σ {s:g}" for s in TAIL_SIGMAS])
        ax.set_yticks(range(len(OUTPUT_MEDIANS)), [f"{o}" for o in OUTPUT_MEDIANS])
        ax.set_xlabel("prompt tail: σ of its own tokens (median 128)")
        ax.set_ylabel("median output tokens")
        low, high = PUBLISHED[den] / TOLERANCE, PUBLISHED[den] * TOLERANCE
        ax.set_title(f"{title}\npaper's regime: {low:.2f}–{high:.2f}× (outlined if reached)",
                     fontsize=9)
    bar = fig.colorbar(image, ax=axes, label="capacity ratio at p99 TTFT ≤ 3.5 s", shrink=0.8)
    ticks = [1 / 3, 0.5, 1, 2, 3]
    bar.set_ticks(ticks, labels=[f"{t:.2g}×" for t in ticks])
    bar.minorticks_off()
    path = out / "affinity_map.png"
    fig.savefig(path, dpi=120)
    print(f"wrote {path}", file=sys.stderr)


def workload_line(out, name):
    """The cell's generated workload as `kvroute workload-stats` measured it, without the prefix."""
    line = workload_header(str(out), name).strip()
    return line.replace("Workload as generated (`kvroute workload-stats`, first seed): ", "")


def hit_rates(run, reference):
    """Mean token hit rate, %, of Flat-LB, CHWBL and CacheRoute at the reference load."""
    hits = [run.per_seed(p, reference, "token_hit_rate")
            for p in ("flat_lb", "chwbl", "cacheroute")]
    return " / ".join(f"{100 * sum(h.values()) / len(h) if h else float('nan'):.0f}" for h in hits)


def ratio_text(run, den):
    ratio = paired_ratio(run.seeds("cacheroute", SLO_S), run.seeds(den, SLO_S))
    return ratio.text(digits=digits_near(ratio), unit="×") + (" ★" if in_band(ratio, den) else "")


def cross_section(args, out, cells, key, values):
    """The own cell's runs with one knob moved: {value: (Run, ideal hit rate)}."""
    return {v: cells[OWN_CELL] if cell_name(*OWN_CELL, **{key: v}) == cell_name(*OWN_CELL)
            else run_cell(args.binary, out, *OWN_CELL, args.seeds, args.reuse, **{key: v})
            for v in values}


def print_cross_section(out, title, label, runs, reference):
    print(f"{title}\n")
    for v, _ in runs.items():
        print(f"- {label[0]} {v:g}: {workload_line(out, cell_name(*OWN_CELL, **label[1](v)))}")
    print(f"\n| {label[0]} | CacheRoute / Flat-LB | CacheRoute / CHWBL | token hit rate at "
          f"{reference:g} QPS, Flat-LB / CHWBL / CacheRoute (ideal) | capacity, QPS (Flat-LB / "
          "CHWBL / CacheRoute) |")
    print("|---|---:|---:|---:|---:|")
    for v, (run, ideal) in runs.items():
        caps = " / ".join(run.cap(p, SLO_S) for p in ("flat_lb", "chwbl", "cacheroute"))
        print(f"| {v:g} | {ratio_text(run, 'flat_lb')} | {ratio_text(run, 'chwbl')} | "
              f"{hit_rates(run, reference)} (ideal {ideal:.0f}%) | {caps} |")
    print()


def main():
    args, out = experiment_args(__doc__, "/tmp/kvroute-affinity-map", seeds=5)
    cells = {(o, s): run_cell(args.binary, out, o, s, args.seeds, args.reuse)
             for o in OUTPUT_MEDIANS for s in TAIL_SIGMAS}
    reference = cells[(200, 0.8)][0].reference_qps()
    bands = {den: (PUBLISHED[den] / TOLERANCE, PUBLISHED[den] * TOLERANCE) for den in PUBLISHED}
    print(f"{args.seeds} paired seeds per cell; capacity at p99 TTFT ≤ {SLO_S:g} s, bisected to "
          f"1 QPS or 2%; ratios paired by seed, mean [95% CI]. ★: the CI reaches the paper's "
          f"band, {bands['flat_lb'][0]:.2f}–{bands['flat_lb'][1]:.2f}× for CacheRoute / Flat-LB "
          f"(176/42 = 4.19× ×/÷ 1.5) and {bands['chwbl'][0]:.2f}–{bands['chwbl'][1]:.2f}× for "
          "CacheRoute / CHWBL (the best baseline's 176/76 = 2.32× ×/÷ 1.5).\n")
    print("Workloads as generated (`kvroute workload-stats`, first seed, 120 QPS):\n")
    for o in OUTPUT_MEDIANS:
        for s in TAIL_SIGMAS:
            print(f"- output {o}, tail σ {s:g}: {workload_line(out, cell_name(o, s))}")
    print()
    for title, den in (("CacheRoute / Flat-LB", "flat_lb"), ("CacheRoute / CHWBL", "chwbl")):
        print(f"{title} (rows: median output tokens; columns: sigma of a prompt's own tokens)\n")
        print("| output \\ tail | " + " | ".join(f"σ = {s:g}" for s in TAIL_SIGMAS) + " |")
        print("|---|" + "---:|" * len(TAIL_SIGMAS))
        for o in OUTPUT_MEDIANS:
            row = [ratio_text(cells[(o, s)][0], den) for s in TAIL_SIGMAS]
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
            row.append(f"{hit_rates(run, reference)} (ideal {ideal:.0f}%)")
        print(f"| {o} | " + " | ".join(row) + " |")
    print("\nCapacities, QPS (Flat-LB / CHWBL / CacheRoute)\n")
    print("| output \\ tail | " + " | ".join(f"σ = {s:g}" for s in TAIL_SIGMAS) + " |")
    print("|---|" + "---:|" * len(TAIL_SIGMAS))
    for o in OUTPUT_MEDIANS:
        row = [" / ".join(cells[(o, s)][0].cap(p, SLO_S) for p in ("flat_lb", "chwbl",
                                                                     "cacheroute"))
               for s in TAIL_SIGMAS]
        print(f"| {o} | " + " | ".join(row) + " |")
    print()
    own = f"{OWN_CELL[0]} output tokens, tail σ {OWN_CELL[1]:g}"
    print_cross_section(out, f"Skew of key rates, through the win workload's own cell ({own}; "
                        "lognormal σ of the key rates over its 1,500 active keys, the 10% whale "
                        "kept; its own σ 1.5)", ("rate σ", lambda v: {"skew": v}),
                        cross_section(args, out, cells, "skew", SKEW_SIGMAS), reference)
    print_cross_section(out, "Requests without a shared prefix, through the same cell (the "
                        "share of sessions with nothing reusable, seed 003 §5.4; its own 0)",
                        ("no-prefix share", lambda v: {"prefix_free": v}),
                        cross_section(args, out, cells, "prefix_free", PREFIX_FREE_SHARES),
                        reference)
    plot(cells, out)


if __name__ == "__main__":
    main()
