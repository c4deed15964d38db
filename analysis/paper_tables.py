#!/usr/bin/env python3
"""Side-by-side tables of the CacheRoute paper (seed 003) and kvroute.

Reads the results that scripts/reproduce.sh writes (NAME.h5 from `kvroute run`,
NAME.json from `kvroute point --json`) and prints Markdown: for every experiment
the published numbers next to kvroute's, as mean ± 95% CI half-width over the
paired seeds, capacities marked with their censoring (">" right-censored at the
top of the grid, "<" left-censored below its first load).

    analysis/paper_tables.py RESULTS_DIR > tables.md
"""
import json
import math
import os
import sys

import h5py
import numpy as np

# Two-sided 97.5% Student-t quantiles by degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def mean_ci(values):
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return float("nan"), float("nan")
    m = float(np.mean(values))
    if len(values) < 2:
        return m, float("nan")
    half = T975.get(len(values) - 1, 1.96) * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    return m, half


def fmt(m, half, scale=1.0, digits=1, unit=""):
    if not math.isfinite(m):
        return "—" if m != math.inf else "∞"
    text = f"{m * scale:.{digits}f}"
    if math.isfinite(half) and half > 0:
        text += f" ± {half * scale:.{digits}f}"
    return text + unit


class Run:
    """One `kvroute run` output file."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.series = f["timeseries"][()] if "timeseries" in f else None
            self.points = f["points"][()]
            self.summary = f["summary"][()]
            self.baseline = f.attrs["baseline"].decode()
            self.slos = f["slos"][()]

    def policies(self):
        seen = []
        for p in self.summary["policy"]:
            p = p.decode()
            if p not in seen:
                seen.append(p)
        return seen

    def slo_index(self, threshold):
        for row in self.slos:
            if abs(row["threshold_s"] - threshold) < 1e-9:
                return int(row["index"])
        raise KeyError(threshold)

    def point_values(self, policy, qps, column):
        rows = self.points[(self.points["policy"] == policy.encode()) & (self.points["qps"] == qps)
                           & (self.points["refinement_round"] == 0)]
        return [float(v) for v in rows[column]]

    def at(self, policy, qps, column, scale=1.0, digits=1, unit=""):
        values = self.point_values(policy, qps, column)
        infinite = sum(1 for v in values if v == math.inf)
        if infinite:  # requests left unfinished: the percentile is unbounded
            return f"∞ in {infinite}/{len(values)} seeds"
        m, half = mean_ci(values)
        return fmt(m, half, scale, digits, unit)

    def summary_row(self, policy, threshold):
        """The /summary row kvroute wrote for (policy, SLO): capacity statistics over seeds."""
        rows = self.summary[(self.summary["policy"] == policy.encode())
                            & (self.summary["slo_index"] == self.slo_index(threshold))]
        return rows[0]

    @staticmethod
    def half_width(low, high):
        return (high - low) / 2 if math.isfinite(low) and math.isfinite(high) else float("nan")

    def cap(self, policy, threshold):
        """Capacity over the uncensored seeds (mean ± CI, or the grid interval [low, high) when
        not bisected), with the censored seeds and their bound, as kvroute prints it."""
        row = self.summary_row(policy, threshold)
        seeds, uncensored = int(row["seeds"]), int(row["uncensored_seeds"])
        left, right = int(row["left_censored_seeds"]), int(row["right_censored_seeds"])
        notes = []
        if left:
            notes.append(f"{left}/{seeds} < {float(row['censored_below_qps']):g}")
        if right:
            notes.append(f"{right}/{seeds} ≥ {float(row['censored_at_least_qps']):g}")
        if not uncensored:
            return ", ".join(notes)
        if int(row["quantised"]):
            text = (f"[{float(row['capacity_mean_qps']):g}, "
                    f"{float(row['capacity_upper_mean_qps']):g})")
        else:
            text = fmt(float(row["capacity_mean_qps"]),
                       self.half_width(row["capacity_ci95_low_qps"],
                                       row["capacity_ci95_high_qps"]), digits=0)
        return text + (f" ({', '.join(notes)})" if notes else "")

    def ratio(self, policy, threshold, baseline):
        """Capacity ratio to `baseline`, paired by seed (seeds where either capacity is censored
        left out), as kvroute computed it for the run's sweep.baseline."""
        if baseline != self.baseline:
            raise ValueError(f"the run's baseline is '{self.baseline}', not '{baseline}'")
        row = self.summary_row(policy, threshold)
        if int(row["ratio_seeds"]) == 0:
            return "—"
        return fmt(float(row["ratio_mean"]),
                   self.half_width(row["ratio_ci95_low"], row["ratio_ci95_high"]), digits=2, unit="×")

    def rebuild_dip(self, policy, qps, interval_s):
        """Hit-rate points lost in the series bucket after each control tick against the
        bucket before it, averaged over ticks and seeds: the re-warm cost of a new plan."""
        dips = []
        rows = np.flatnonzero((self.points["policy"] == policy.encode())
                              & (self.points["qps"] == qps) & (self.points["refinement_round"] == 0))
        for row in rows:
            mine = self.series[self.series["point"] == row]
            width = float(mine["start_s"][1] - mine["start_s"][0])
            rate = dict(zip(mine["start_s"], mine["token_hit_rate"]))
            t = interval_s
            while t + width <= mine["start_s"][-1]:
                before, after = rate.get(t - width), rate.get(t)
                if before is not None and after is not None:
                    dips.append(before - after)
                t += interval_s
        m, half = mean_ci(dips)
        return fmt(m, half, 100, 1, " pts")

    def hit(self, policy, qps):
        return self.at(policy, qps, "token_hit_rate", 100, 1, "%")

    def reference_qps(self):
        return float(self.summary["reference_qps"][0])


def table(header, rows):
    if not rows:
        return ""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def load(directory, name):
    path = os.path.join(directory, name + ".h5")
    return Run(path) if os.path.exists(path) else None


def flagship(d):
    run = load(d, "flagship")
    if not run:
        return ""
    paper = {
        "flat_lb": ("64.1 ± 1.3%", "<30", "42 ± 20", "—", "5.7 s"),
        "sticky": ("87.3 ± 2.4%", "<30", "30", "—", "8.5 s"),
        "chwbl": ("75.6 ± 0.8%", "<30", "64 ± 11", "—", "3.8 s"),
        "dualmap": ("88.7 ± 1.9%", "<30", "58 ± 22", "—", "5.3 s"),
        "preble": ("72.0 ± 0.7%", "<30", "76 ± 11", "140", "3.8 s"),
        "cacheroute": ("93.2 ± 0.5%", "passes", "176 ± 11", "180", "1.8 s"),
    }
    rows = []
    for p in run.policies():
        pp = paper.get(p, ("",) * 5)
        rows.append([p, run.hit(p, 100), pp[0], run.cap(p, 2), pp[1], run.cap(p, 3.5), pp[2],
                     run.cap(p, 5), pp[3], run.at(p, 100, "ttft_p99_s", 1, 2, " s"), pp[4]])
    return "### Flagship (§5.1)\n\n" + table(
        ["policy", "hit @100", "paper", "cap @2 s", "paper", "cap @3.5 s", "paper", "cap @5 s",
         "paper", "p99 TTFT @100", "paper"], rows)


def short_outputs(d):
    run = load(d, "flagship_short_outputs")
    if not run:
        return ""
    q = run.reference_qps()
    rows = [[p, run.hit(p, q), run.cap(p, 3.5), run.ratio(p, 3.5, "flat_lb")] for p in run.policies()]
    return (f"### Sensitivity: the flagship with short outputs (median 48 tokens), hit at {q:g} QPS\n\n" +
            table(["policy", "hit", "cap @3.5 s", "vs flat_lb"], rows))


def second_workload(d):
    out = "### Second workload (§5.2)\n\n"
    rows = []
    paper = {("k128", "cacheroute"): "100", ("k128", "dualmap"): "100", ("k128", "chwbl"): "100",
             ("k256", "cacheroute"): "160", ("k256", "dualmap"): "100"}
    for k in ("k128", "k256"):
        run = load(d, "second_" + k)
        if not run:
            continue
        for p in run.policies():
            rows.append([k.upper(), p, run.hit(p, run.reference_qps()), run.cap(p, 3.5),
                         paper.get((k, p), "—"), run.ratio(p, 3.5, "flat_lb")])
    return out + table(["active set", "policy", "hit @ref", "cap @3.5 s", "paper", "vs flat_lb"], rows)


def ablation(d):
    run = load(d, "ablation")
    if not run:
        return ""
    paper = {"flat_lb": ("56 ± 1.9%", "1.00×", "240"), "affinity": ("88 ± 1.5%", "3.46×", "240"),
             "replication": ("88 ± 1.6%", "2.60×", "240"),
             "cacheroute": ("90 ± 1.0%", "1.24×", "500 (>grid)")}
    q = run.reference_qps()
    rows = []
    for p in run.policies():
        pp = paper.get(p, ("",) * 3)
        rows.append([p, run.hit(p, q), pp[0], run.at(p, q, "imbalance", 1, 2, "×"), pp[1],
                     run.cap(p, 3.5), pp[2]])
    return (f"### Ablation (§5.3), hit and imbalance at {q:g} QPS\n\n" +
            table(["configuration", "hit", "paper", "imbalance", "paper", "cap @3.5 s", "paper"], rows))


def regimes(d):
    paper = {"win": ("9.3%", "77.0%", "2–6×"), "lose": ("1.1%", "11.8%", "0.50–0.67×"),
             "tie": ("0.8%", "8.5%", "1.0×")}
    rows = []
    for regime in ("win", "lose", "tie"):
        run = load(d, "regime_" + regime)
        if not run:
            continue
        q = run.reference_qps()
        pp = paper[regime]
        rows.append([regime, run.hit("flat_lb", q), pp[0], run.hit("cacheroute", q), pp[1],
                     run.cap("flat_lb", 3.5), run.cap("cacheroute", 3.5),
                     run.ratio("cacheroute", 3.5, "flat_lb"), pp[2]])
    return "### Regimes (§5.4)\n\n" + table(
        ["regime", "Flat-LB hit", "paper", "CacheRoute hit", "paper", "Flat-LB cap", "CacheRoute cap",
         "ratio", "paper"], rows)


def burstiness(d):
    rows = []
    paper = {("flagship", "cacheroute"): "176–180", ("flagship", "flat_lb"): "42",
             ("bursty_gamma", "cacheroute"): "160", ("bursty_gamma", "flat_lb"): "30",
             ("bursty_bootstrap", "cacheroute"): "~180 (93% hit)",
             ("bursty_bootstrap", "flat_lb"): "<30"}
    labels = {"flagship": "Poisson (flagship)", "bursty_gamma": "gamma CV 1.9",
              "bursty_bootstrap": "moving-block bootstrap"}
    for name in ("flagship", "bursty_gamma", "bursty_bootstrap"):
        run = load(d, name)
        if not run:
            continue
        for p in ("flat_lb", "cacheroute"):
            rows.append([labels[name], p, run.hit(p, 100), run.cap(p, 3.5), paper[(name, p)]])
    return "### Burstiness (§5.6)\n\n" + table(["arrivals", "policy", "hit @100", "cap @3.5 s",
                                                  "paper"], rows)


def drift(d):
    run = load(d, "drift")
    if not run:
        return ""
    q = run.reference_qps()
    rows = []
    for p in run.policies():
        rows.append([p, run.hit(p, q), run.at(p, q, "ttft_p99_s", 1, 2, " s"),
                     run.at(p, q, "plan_mean_churn", 100, 1, "%"),
                     run.at(p, q, "plan_rebuilds", 1, 1), run.at(p, q, "plan_holds", 1, 1),
                     run.rebuild_dip(p, q, 60), run.cap(p, 3.5)])
    return (f"### Drift and replanning (§3.2, §5.4), at {q:g} QPS\n\n" +
            "Paper: a plan one interval stale costs at worst 3.0 hit points and +858 ms p99; a "
            "fresh LPT plan moves 94.5% of key→destination assignments; installing it dips the "
            "hit rate by 13.6 points.\n\n" +
            table(["replanning", "hit", "p99 TTFT", "churn per rebuild", "rebuilds", "holds",
                   "hit dip at a tick", "cap @3.5 s"], rows))


def precision(d):
    paper = {("k128", "flat_lb"): "19.5%", ("k128", "cacheroute"): "76.4%",
             ("k128", "sticky"): "77.3%", ("k256", "flat_lb"): "~10%",
             ("k256", "cacheroute"): "~77%"}
    rows = []
    for k in ("k128", "k256"):
        run = load(d, "precision_" + k)
        if not run:
            continue
        q = run.reference_qps()
        for p in run.policies():
            rows.append([k.upper(), p, run.hit(p, q), paper.get((k, p), "—"), run.cap(p, 3.5), "0"])
    return "### Precision fp16 (appendix Table 8), hit at the grid's first load\n\n" + table(
        ["active set", "policy", "hit", "paper", "cap @3.5 s", "paper"], rows)


def qcap(d):
    rows = []
    for share in ("00", "05", "15", "25", "45"):
        run = load(d, "qcap_head" + share)
        if not run:
            continue
        q = run.reference_qps()
        for p in run.policies():
            if p == "flat_lb":
                continue
            rows.append([f"{int(share)}%", p, run.hit(p, q), run.cap(p, 3.5),
                         run.ratio(p, 3.5, "flat_lb"),
                         run.at(p, q, "plan_slots_used", 1, 0)])
    return ("### q_cap sensitivity × head share (appendix Table 13)\n\n"
            "Paper (no head share): hit 89–91% and capacity ratio ~1.50 for every q_cap in "
            "{50, 100, 200, 500}; the joint sweep is new.\n\n" +
            table(["head share", "q_cap", "hit @ref", "cap @3.5 s", "vs flat_lb", "Σk_b"], rows))


def cluster_size(d):
    paper = {"8": "nothing passes", "30": "4.44× (70% vs 14% hit)", "60": "no advantage"}
    rows = []
    for r, name in (("8", "cluster_r8"), ("30", "regime_win"), ("60", "cluster_r60")):
        run = load(d, name)
        if not run:
            continue
        q = run.reference_qps()
        rows.append([r, run.hit("flat_lb", q), run.hit("cacheroute", q), run.cap("flat_lb", 3.5),
                     run.cap("cacheroute", 3.5), run.ratio("cacheroute", 3.5, "flat_lb"), paper[r]])
    return "### Cluster size (appendix Table 14), same load grid\n\n" + table(
        ["R", "Flat-LB hit", "CacheRoute hit", "Flat-LB cap", "CacheRoute cap", "ratio", "paper"], rows)


def canary(d):
    out = "### Canary shifting (seed 000): deployment B's share over time\n\n"
    series = {}
    for lam in ("10", "0"):
        path = os.path.join(d, f"canary_lambda{lam}.json")
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            series[lam] = [s for s in json.load(f)["deployment_series"]
                           if s["deployment_name"] == "B"]

    def pct(v):
        return "—" if v is None else f"{100 * v:.2f}%"

    def cold(s):  # of prompts A holds entirely and B not at all, B's share (the seed's case)
        return pct(s["cold_hit_elsewhere_taken"] / s["cold_hit_elsewhere"]) \
            if s["cold_hit_elsewhere"] else "—"

    rows = []
    for a, b in zip(series["10"], series["0"]):
        rows.append([f"{a['start_s']:g}", pct(a["share"]), cold(a), pct(a["token_hit_rate"]),
                     pct(b["share"]), pct(b["token_hit_rate"])])
    return out + ("Seed 000: with λ_h = 10 a prompt only A holds goes to B with probability "
                  "9/(2^10+9) = 0.87% until B holds it too; B's overall share rises towards 90% as "
                  "it warms. With λ_h = 0 the split is 1:9 at once and B recomputes.\n\n") + table(
        ["bucket start (s)", "B share (λ=10)", "B share of prompts only A holds (λ=10)",
         "B hit (λ=10)", "B share (λ=0)", "B hit (λ=0)"], rows)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: paper_tables.py RESULTS_DIR")
    d = sys.argv[1]
    parts = [flagship(d), short_outputs(d), second_workload(d), ablation(d), regimes(d), burstiness(d), drift(d),
             precision(d), qcap(d), cluster_size(d), canary(d)]
    print("\n".join(p for p in parts if p))
    timings = os.path.join(d, "timings.txt")
    if os.path.exists(timings):
        with open(timings) as f:
            print("### Wall and CPU time per run\n\n```\n" + f.read() + "```")


if __name__ == "__main__":
    main()
