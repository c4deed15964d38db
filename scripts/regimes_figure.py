#!/usr/bin/env python3
"""The regimes figure (seed 003 §5.4, the paper's Figure 6 as a map): CacheRoute's capacity over
Flat-LB's against the hit rate affinity gains (CacheRoute's token hit rate minus Flat-LB's at
each run's reference load; the paper's table gives both hit rates of each regime), for every
run of the reproduction that has both policies: the win workload, the twelve swept lose/tie
cells and, when given, the cells of the affinity map. The paper's three regimes are marked. Prints Markdown (one row per run, sorted by
gain) and, with matplotlib, draws DIR/regimes.png.

    scripts/regimes_figure.py REPRODUCE_DIR [--affinity DIR] [--plot DIR]

REPRODUCE_DIR holds `scripts/reproduce.sh`'s regime_win.h5 and regime_share*_sigma*.h5;
--affinity the out*_sigma*.h5 of scripts/affinity_map.py.
"""
import argparse
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from figures import pyplot  # noqa: E402
from paper_results import Run  # noqa: E402
from paper_claims import ratio_text  # noqa: E402

SLO_S = 3.5  # the paper's p99 TTFT threshold, every run's capacity SLO
# The paper's rows (seed 003 §5.4): (name, Flat-LB hit %, affinity hit %, ratio low, high).
PAPER = [("win (8B whale)", 9.3, 77.0, 2.0, 6.0), ("lose (aggregate A, 32B)", 1.1, 11.8, 0.50, 0.67),
         ("tie (aggregate B, 32B)", 0.8, 8.5, 1.0, 1.0)]


def point(run):
    """(hit-rate gain in points, Flat-LB hit %, CacheRoute hit %, ratio Stats) of one run."""
    q = run.reference_qps()
    flat = 100 * float(np.mean(run.point_values("flat_lb", q, "token_hit_rate")))
    cache = 100 * float(np.mean(run.point_values("cacheroute", q, "token_hit_rate")))
    return cache - flat, flat, cache, run.ratio("cacheroute", "flat_lb", SLO_S)


def runs(directory, affinity):
    found = []
    d = pathlib.Path(directory)
    if (d / "regime_win.h5").exists():
        found.append(("win", "win (regime_win.yaml)", Run(str(d / "regime_win.h5"))))
    for path in sorted(d.glob("regime_share*_sigma*.h5")):
        share, sigma = path.stem[len("regime_share"):].split("_sigma")
        found.append(("swept", f"no_prefix_share {share}, σ {sigma}", Run(str(path))))
    if affinity:
        for path in sorted(pathlib.Path(affinity).glob("out*_sigma*.h5")):
            output, sigma = path.stem[len("out"):].split("_sigma")
            found.append(("map", f"affinity map: output {output}, tail σ {sigma}", Run(str(path))))
    return found


def plot(rows, directory):
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"win": ("o", "tab:green"), "swept": ("s", "tab:blue"), "map": ("^", "tab:orange")}
    for kind, label in (("win", "win workload"), ("swept", "lose/tie cells (swept)"),
                        ("map", "affinity map cells")):
        mine = [r for r in rows if r[0] == kind and math.isfinite(r[5].mean)]
        if not mine:
            continue
        marker, color = styles[kind]
        ax.errorbar([r[2] for r in mine], [r[5].mean for r in mine],
                    yerr=[[r[5].mean - r[5].ci[0] for r in mine],
                          [r[5].ci[1] - r[5].mean for r in mine]],
                    fmt=marker, color=color, label=label, capsize=2)
    for name, flat, cache, low, high in PAPER:
        ax.plot([cache - flat] * 2, [low, high], color="black", linewidth=4, alpha=0.5,
                marker="_" if low == high else None, markersize=14)
        ax.annotate(f"paper: {name}", (cache - flat, high), textcoords="offset points",
                    xytext=(4, 4), fontsize=7)
    ax.axhline(1.0, color="grey", linestyle=":")
    ax.set_yscale("log")
    ticks = [0.5, 0.67, 1, 1.5, 2, 3, 4, 6]
    ax.set_yticks(ticks, [f"{t:g}×" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("hit rate affinity gains: CacheRoute − Flat-LB token hit rate (points)")
    ax.set_ylabel("capacity CacheRoute / Flat-LB (p99 TTFT ≤ 3.5 s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = pathlib.Path(directory) / "regimes.png"
    fig.savefig(path, dpi=120)
    print(f"wrote {path}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reproduce_dir")
    parser.add_argument("--affinity", help="scripts/affinity_map.py's --out directory")
    parser.add_argument("--plot", help="draw regimes.png into this directory")
    args = parser.parse_args()
    rows = []
    for kind, label, run in runs(args.reproduce_dir, args.affinity):
        gain, flat, cache, ratio = point(run)
        rows.append((kind, label, gain, flat, cache, ratio))
    if not rows:
        sys.exit(f"{args.reproduce_dir}: no regime_win.h5 or regime_share*_sigma*.h5")
    rows.sort(key=lambda r: r[2])
    print("| run | Flat-LB hit | CacheRoute hit | gain, points | CacheRoute / Flat-LB |")
    print("|---|---:|---:|---:|---:|")
    for kind, label, gain, flat, cache, ratio in rows:
        print(f"| {label} | {flat:.1f}% | {cache:.1f}% | {gain:.1f} | "
              f"{ratio_text(ratio)} |")
    print("\nThe paper's rows: " + "; ".join(
        f"{name} {flat}% → {cache}% (gain {cache - flat:.1f}), "
        f"{low:g}{'–%g' % high if high != low else ''}×" for name, flat, cache, low, high in PAPER))
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
