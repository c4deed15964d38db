#!/usr/bin/env python3
"""Draws the plots of a kvroute results file (`kvroute report FILE.h5 --plots DIR`).

Usage: plot_report.py FILE.h5 DIR [--qps Q] [--format png|pdf|svg] [--dpi N]
                      [--published VALUES.json]

Writes into DIR, and prints each path it wrote (each is written under a
temporary name and renamed, so a plot is never half-written):
  slo_vs_load       each SLO's metric against load, one line per policy: the mean
                    over seeds with its 95% confidence band (Student t), the SLO
                    threshold dashed; a load where some seed's percentile is
                    unbounded (requests left unfinished) is drawn at the top, hollow
  hit_rate_vs_load  token-weighted KV hit rate against load, mean and 95% band
  capacity          each policy's SLO capacity: a solid bar for the mean over the
                    uncensored seeds with its 95% CI when bisection resolved it, a
                    bar to the lower bound with the grid interval [low, high) as a
                    bracket when the grid quantises it; hatched bars for censored
                    capacities (their bound: >= the highest load, < the lowest);
                    with --published, the published values as black diamonds
  replica_load      requests per replica at the reference load (mean over seeds),
                    replicas sorted from busiest to idlest
and from the time series, at load Q (default: the reference load), over simulated time:
  hit_rate_over_time   token hit rate per bucket, one line per policy (all seeds'
                       tokens together); grey bands mark the warm-up
  queue_over_time      waiting requests per replica (mean over replicas, solid) and
                       on the busiest replica (dotted), mean over seeds; a vertical
                       line marks each bucket with a replica failure (red) or
                       recovery (green)
  deployment_share_over_time  with several deployments: each deployment's share of
                       the requests per bucket, one panel per policy
  replicas_over_time   when the replica count changes during the run (an autoscaler,
                       failures): replicas serving (solid) and billed (dashed) per
                       bucket, mean over seeds, one colour per policy; the legend
                       gives each policy's dollars over the whole run when priced
A scenario with a single load gets no plot against load and no capacity plot.
"""
import argparse
import json
import math
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# Two-sided 95% Student t quantiles t(0.975, df) for df = 1..30; 1.96 beyond.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def policies_in_order(names):
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def mean_band(values):
    """Mean and 95% half-width over seeds (NaN half-width for one seed); inf if any is."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return math.nan, math.nan
    if np.isinf(values).any():
        return math.inf, math.nan
    mean = float(np.mean(values))
    if values.size < 2:
        return mean, math.nan
    half = t975(values.size - 1) * float(np.std(values, ddof=1)) / math.sqrt(values.size)
    return mean, half


def by_load(points, mask, column):
    """Loads (sorted), and the mean and 95% half-width of `column` over seeds at each."""
    loads = sorted(set(points["qps"][mask]))
    stats = [mean_band(points[column][mask & (points["qps"] == q)]) for q in loads]
    return (np.array(loads), np.array([s[0] for s in stats]), np.array([s[1] for s in stats]))


def draw_line(ax, loads, means, halves, label, ceiling=None, scale=1.0):
    line = ax.plot(loads, np.where(np.isfinite(means), means * scale, np.nan), marker="o",
                   label=label)[0]
    band = np.isfinite(means) & np.isfinite(halves)
    if band.any():
        ax.fill_between(loads, np.where(band, (means - halves) * scale, np.nan),
                        np.where(band, (means + halves) * scale, np.nan), color=line.get_color(),
                        alpha=0.2, linewidth=0)
    if ceiling is not None and np.isinf(means).any():
        top = np.isinf(means)
        ax.plot(loads[top], np.full(top.sum(), ceiling), linestyle="none", marker="^",
                markerfacecolor="none", color=line.get_color())


def plot_slos(points, policies, slos, out):
    fig, axes = plt.subplots(1, len(slos), figsize=(5.5 * len(slos), 4), squeeze=False)
    grid = points["refinement_round"] == 0
    for i, slo in enumerate(slos):
        ax = axes[0][i]
        column = "slo%d_value_s" % i
        finite = points[column][np.isfinite(points[column])]
        ceiling = max(float(slo["threshold_s"]) * 4, float(finite.max()) if finite.size else 1.0)
        for policy in policies:
            loads, means, halves = by_load(points, grid & (points["policy"] == policy), column)
            draw_line(ax, loads, means, halves, policy, ceiling=ceiling)
        ax.axhline(float(slo["threshold_s"]), color="black", linestyle="--", linewidth=1,
                   label="SLO %g s" % float(slo["threshold_s"]))
        ax.set_yscale("log")
        ax.set_xlabel("load (QPS)")
        ax.set_ylabel("%s, seconds (mean, 95%% band over seeds)"
                      % text(slo["label"]).split(" <=")[0])
        ax.set_title("SLO " + text(slo["label"]) + " (hollow triangle: unbounded, unfinished)",
                     fontsize=9)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return out.save(fig, "slo_vs_load")


def plot_hit_rate(points, policies, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    grid = points["refinement_round"] == 0
    for policy in policies:
        loads, means, halves = by_load(points, grid & (points["policy"] == policy),
                                       "token_hit_rate")
        draw_line(ax, loads, means, halves, policy, scale=100.0)
    ax.set_xlabel("load (QPS)")
    ax.set_ylabel("token hit rate, % (mean, 95% band over seeds)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return out.save(fig, "hit_rate_vs_load")


def plot_capacity(summary, policies, slos, published, out):
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(policies) * len(slos)), 4.5))
    width = 0.8 / len(slos)
    x = np.arange(len(policies))
    shown_published = False
    for i, slo in enumerate(slos):
        color = "C%d" % i
        offset = (i - (len(slos) - 1) / 2) * width
        for j, policy in enumerate(policies):
            rows = summary[(summary["policy"] == policy) & (summary["slo_index"] == i)]
            if not len(rows):
                continue
            row = rows[0]
            at = x[j] + offset
            label = "SLO " + text(slo["label"]) if j == 0 else None
            if int(row["uncensored_seeds"]) > 0:
                mean = float(row["capacity_mean_qps"])
                if int(row["quantised"]):
                    upper = float(row["capacity_upper_mean_qps"])
                    ax.bar(at, mean, width, color=color, label=label)
                    ax.errorbar(at, (mean + upper) / 2, yerr=(upper - mean) / 2, color="black",
                                capsize=4, linewidth=1)
                    ax.annotate("[%g, %g)" % (mean, upper), (at, upper), ha="center",
                                va="bottom", fontsize=7)
                else:
                    low, high = (float(row["capacity_ci95_low_qps"]),
                                 float(row["capacity_ci95_high_qps"]))
                    yerr = None if math.isnan(low) else [[mean - low], [high - mean]]
                    ax.bar(at, mean, width, color=color, label=label, yerr=yerr, capsize=4)
            for kind, column, sign, hatch in (("right", "censored_at_least_qps", "≥", "//"),
                                              ("left", "censored_below_qps", "<", "\\\\")):
                seeds = int(row[kind + "_censored_seeds"])
                if seeds == 0:
                    continue
                bound = float(row[column])
                if int(row["uncensored_seeds"]) == 0:
                    ax.bar(at, bound, width, color=color, alpha=0.45, hatch=hatch,
                           edgecolor="black", label=label)
                    label = None
                ax.annotate("%s %g (%d seed%s)" % (sign, bound, seeds, "" if seeds == 1 else "s"),
                            (at, bound), ha="center", va="bottom", fontsize=7)
            for p in published:
                if p["policy"] == policy and int(p["slo"]) == i:
                    value = float(p["capacity_qps"])
                    yerr = None
                    if p["ci_low_qps"] is not None:
                        yerr = [[value - p["ci_low_qps"]], [p["ci_high_qps"] - value]]
                    name = "published" + (" (%s)" % p["source"] if p["source"] else "")
                    ax.errorbar(at, value, yerr=yerr, marker="D", color="black", capsize=3,
                                linestyle="none", label=None if shown_published else name)
                    shown_published = True
    ax.set_xticks(x, policies)
    ax.set_ylabel("capacity (QPS): mean, 95% CI over uncensored seeds")
    ax.set_title("bracket [low, high): between grid loads, not bisected; hatched: censored, "
                 "a bound only", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.margins(y=0.15)  # room for the bounds' labels
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return out.save(fig, "capacity")


def plot_replica_load(points, replica_requests, policies, reference, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for policy in policies:
        mask = (points["policy"] == policy) & (points["qps"] == reference)
        if not mask.any():
            continue
        per_replica = replica_requests[mask].mean(axis=0)
        ax.plot(np.arange(len(per_replica)), np.sort(per_replica)[::-1], marker="o", label=policy)
    ax.set_xlabel("replica (busiest first)")
    ax.set_ylabel("requests after warm-up (mean over seeds)")
    ax.set_title("per-replica load at %g QPS" % reference)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return out.save(fig, "replica_load")


def series_by_policy(points, series, policies, qps):
    """For each policy with points at `qps`: the rows of `series` of those points."""
    out = {}
    for policy in policies:
        rows = np.flatnonzero((points["policy"] == policy) & (points["qps"] == qps)
                              & (points["refinement_round"] == 0))
        mask = np.isin(series["point"], rows)
        if mask.any():
            out[policy] = series[mask]
    return out


def per_bucket(rows, reduce):
    """Buckets' start times (sorted) and reduce(rows of the bucket) for each."""
    starts = np.unique(rows["start_s"])
    return starts, np.array([reduce(rows[rows["start_s"] == t]) for t in starts])


def shade_warmup(ax, warmup_s):
    if warmup_s > 0:
        ax.axvspan(0, warmup_s, color="0.9", zorder=0)


def plot_hit_rate_over_time(by_policy, qps, warmup_s, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    shade_warmup(ax, warmup_s)
    for policy, rows in by_policy.items():
        def rate(b):
            prompt = b["prompt_tokens"].sum()
            return 100.0 * b["hit_tokens"].sum() / prompt if prompt > 0 else np.nan
        starts, rates = per_bucket(rows, rate)
        ax.plot(starts, rates, drawstyle="steps-post", label=policy)
    ax.set_xlabel("simulated time (s), by arrival")
    ax.set_ylabel("token hit rate, %")
    ax.set_ylim(0, 100)
    ax.set_title("hit rate over time at %g QPS" % qps)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return out.save(fig, "hit_rate_over_time")


def plot_queue_over_time(by_policy, qps, warmup_s, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    shade_warmup(ax, warmup_s)
    marked = set()
    for i, (policy, rows) in enumerate(by_policy.items()):
        color = "C%d" % i
        starts, mean = per_bucket(rows, lambda b: np.nanmean(b["mean_waiting"])
                                  if np.isfinite(b["mean_waiting"]).any() else np.nan)
        _, most = per_bucket(rows, lambda b: b["max_waiting"].mean())
        ax.plot(starts, mean, color=color, drawstyle="steps-post", label=policy + " (mean)")
        ax.plot(starts, most, color=color, linestyle=":", drawstyle="steps-post",
                label=policy + " (busiest replica)")
        for column, line_color in (("failures", "red"), ("recoveries", "green")):
            for t in np.unique(rows["start_s"][rows[column] > 0]):
                if (column, t) not in marked:
                    marked.add((column, t))
                    ax.axvline(t, color=line_color, linewidth=1, alpha=0.6)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("waiting requests per replica")
    ax.set_title("queues over time at %g QPS (mean over seeds)" % qps)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return out.save(fig, "queue_over_time")


def plot_deployment_share(by_policy, qps, warmup_s, out):
    fig, axes = plt.subplots(1, len(by_policy), figsize=(5.5 * len(by_policy), 4),
                             squeeze=False)
    for ax, (policy, rows) in zip(axes[0], by_policy.items()):
        shade_warmup(ax, warmup_s)
        names = policies_in_order([text(n) for n in rows["deployment_name"]])
        total = {t: rows["requests"][rows["start_s"] == t].sum()
                 for t in np.unique(rows["start_s"])}
        for name in names:
            mine = rows[np.array([text(n) == name for n in rows["deployment_name"]])]
            starts, share = per_bucket(mine, lambda b: b["requests"].sum())
            share = np.array([100.0 * s / total[t] if total[t] > 0 else np.nan
                              for t, s in zip(starts, share)])
            ax.plot(starts, share, drawstyle="steps-post", label=name)
        ax.set_xlabel("simulated time (s), by arrival")
        ax.set_ylabel("share of requests, %")
        ax.set_ylim(0, 100)
        ax.set_title("%s at %g QPS" % (policy, qps))
        ax.legend(fontsize=8)
    fig.tight_layout()
    return out.save(fig, "deployment_share_over_time")


def replica_count_changes(series):
    for column in ("serving_replicas", "billed_replicas"):
        values = series[column][np.isfinite(series[column])]
        if len(values) and values.min() != values.max():
            return True
    return False


def plot_replicas_over_time(by_policy, qps, warmup_s, out):
    fig, ax = plt.subplots(figsize=(7, 4))
    shade_warmup(ax, warmup_s)
    for i, (policy, rows) in enumerate(by_policy.items()):
        color = "C%d" % i
        seeds = max(len(np.unique(rows["point"])), 1)
        starts, serving = per_bucket(rows, lambda b: np.nanmean(b["serving_replicas"])
                                     if np.isfinite(b["serving_replicas"]).any() else np.nan)
        _, billed = per_bucket(rows, lambda b: np.nanmean(b["billed_replicas"])
                               if np.isfinite(b["billed_replicas"]).any() else np.nan)
        usd = rows["usd"][np.isfinite(rows["usd"])].sum() / seeds
        label = policy + (" ($%.2f per run)" % usd if usd > 0 else "")
        ax.plot(starts, serving, color=color, drawstyle="steps-post", label=label + " serving")
        ax.plot(starts, billed, color=color, linestyle="--", drawstyle="steps-post",
                label=policy + " billed")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("replicas")
    ax.set_title("replicas over time at %g QPS (mean over seeds)" % qps)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return out.save(fig, "replicas_over_time")


def warmup_seconds(scenario_yaml):
    """The warm-up, from the resolved scenario's top-level `warmup_s` line."""
    for line in scenario_yaml.splitlines():
        if line.startswith("warmup_s:"):
            try:
                return float(line.split(":", 1)[1].split("#")[0].strip().strip('"'))
            except ValueError:
                break
    return 0.0


class Output:
    """Saves figures into a directory as FORMAT at DPI, each atomically."""

    def __init__(self, directory, fmt, dpi):
        self.directory, self.format, self.dpi = directory, fmt, dpi

    def save(self, fig, name):
        path = os.path.join(self.directory, name + "." + self.format)
        temporary = os.path.join(self.directory, ".%s.%d.tmp" % (name, os.getpid()))
        try:
            fig.savefig(temporary, format=self.format, dpi=self.dpi)
            with open(temporary, "rb") as f:
                os.fsync(f.fileno())
            os.replace(temporary, path)
        finally:
            plt.close(fig)
            if os.path.exists(temporary):
                os.remove(temporary)
        return path


def main():
    parser = argparse.ArgumentParser(description="Plots of a kvroute results file")
    parser.add_argument("file")
    parser.add_argument("dir")
    parser.add_argument("--qps", type=float)
    parser.add_argument("--format", choices=("png", "pdf", "svg"), default="png")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--published")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    out = Output(args.dir, args.format, args.dpi)
    published = []
    if args.published:
        with open(args.published) as f:
            published = json.load(f)
    with h5py.File(args.file, "r") as f:
        points = f["points"][:]
        summary = f["summary"][:]
        slos = f["slos"][:]
        replica_requests = f["replica_requests"][:]
        series = f["timeseries"][:]
        deployments = f["deployment_series"][:]
        resolved = f["provenance/resolved_scenario_yaml"][()]
        warmup_s = warmup_seconds(text(resolved))
    # Strings come back as bytes; compare them as str.
    points = {name: points[name] for name in points.dtype.names}
    points["policy"] = np.array([text(p) for p in points["policy"]])
    summary_policy = np.array([text(p) for p in summary["policy"]])
    summary = {name: summary[name] for name in summary.dtype.names}
    summary["policy"] = summary_policy
    summary = np.rec.fromarrays(list(summary.values()), names=list(summary.keys()))
    policies = policies_in_order(list(points["policy"]))
    reference = float(summary["reference_qps"][0]) if len(summary) else float("nan")
    grid_loads = set(points["qps"][points["refinement_round"] == 0])
    written = []
    if len(grid_loads) > 1:  # one load has no curve and no capacity to speak of
        written += [plot_slos(points, policies, slos, out), plot_hit_rate(points, policies, out),
                    plot_capacity(summary, policies, slos, published, out)]
    written.append(plot_replica_load(points, replica_requests, policies, reference, out))
    qps = args.qps if args.qps is not None else reference
    if not (points["qps"] == qps).any():
        sys.exit("%s: no point at %g QPS (loads: %s)" % (
            args.file, qps, ", ".join("%g" % q for q in sorted(set(points["qps"])))))
    if len(series):
        by_policy = series_by_policy(points, series, policies, qps)
        written.append(plot_hit_rate_over_time(by_policy, qps, warmup_s, out))
        written.append(plot_queue_over_time(by_policy, qps, warmup_s, out))
        if replica_count_changes(series):
            written.append(plot_replicas_over_time(by_policy, qps, warmup_s, out))
    if len(deployments):
        by_policy = series_by_policy(points, deployments, policies, qps)
        written.append(plot_deployment_share(by_policy, qps, warmup_s, out))
    for w in written:
        print(w)


if __name__ == "__main__":
    main()
