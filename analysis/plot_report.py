#!/usr/bin/env python3
"""Draws the plots of a kvroute results file (`kvroute report FILE.h5 --plots DIR`).

Usage: plot_report.py FILE.h5 DIR [QPS]

Writes into DIR, and prints each path it wrote:
  slo_vs_load.png     each SLO's metric (mean over seeds) against load, one line per
                      policy, with the SLO threshold as a dashed line
  hit_rate_vs_load.png  token-weighted KV hit rate against load
  capacity.png        each policy's SLO capacity, mean with its 95% CI over seeds
  replica_load.png    requests per replica at the reference load (mean over seeds),
                      replicas sorted from busiest to idlest
and from the time series, at load QPS (default: the reference load), over simulated time:
  hit_rate_over_time.png   token hit rate per bucket, one line per policy (all seeds'
                           tokens together); grey bands mark the warm-up
  queue_over_time.png      waiting requests per replica (mean over replicas, solid) and
                           on the busiest replica (dotted), mean over seeds; a vertical
                           line marks each bucket with a replica failure (red) or
                           recovery (green)
  deployment_share_over_time.png  with several deployments: each deployment's share of
                           the requests per bucket, one panel per policy
"""
import math
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def policies_in_order(names):
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def mean_by_load(points, mask, column):
    """Loads (sorted) and the mean of `column` over the seeds at each load."""
    loads = sorted(set(points["qps"][mask]))
    means = []
    for q in loads:
        values = points[column][mask & (points["qps"] == q)]
        means.append(float(np.mean(values)))
    return np.array(loads), np.array(means)


def plot_slos(points, policies, slos, out_dir):
    fig, axes = plt.subplots(1, len(slos), figsize=(5.5 * len(slos), 4), squeeze=False)
    grid = points["refinement_round"] == 0
    for i, slo in enumerate(slos):
        ax = axes[0][i]
        column = "slo%d_value_s" % i
        finite = points[column][np.isfinite(points[column])]
        ceiling = max(float(slo["threshold_s"]) * 4, float(finite.max()) if finite.size else 1.0)
        for policy in policies:
            mask = grid & (points["policy"] == policy)
            loads, means = mean_by_load(points, mask, column)
            # A censored percentile (requests never finished) is +inf: drawn at the top.
            shown = np.where(np.isfinite(means), means, ceiling)
            ax.plot(loads, shown, marker="o", label=policy)
        ax.axhline(float(slo["threshold_s"]), color="black", linestyle="--", linewidth=1,
                   label="SLO %g s" % float(slo["threshold_s"]))
        ax.set_yscale("log")
        ax.set_xlabel("load (QPS)")
        ax.set_ylabel("%s, seconds (mean over seeds)" % text(slo["label"]).split(" <=")[0])
        ax.set_title("SLO " + text(slo["label"]))
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, "slo_vs_load.png")


def plot_hit_rate(points, policies, out_dir):
    fig, ax = plt.subplots(figsize=(6, 4))
    grid = points["refinement_round"] == 0
    for policy in policies:
        loads, means = mean_by_load(points, grid & (points["policy"] == policy), "token_hit_rate")
        ax.plot(loads, 100 * means, marker="o", label=policy)
    ax.set_xlabel("load (QPS)")
    ax.set_ylabel("token hit rate, % (mean over seeds)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, "hit_rate_vs_load.png")


def plot_capacity(summary, policies, slos, out_dir):
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(policies) * len(slos)), 4))
    width = 0.8 / len(slos)
    x = np.arange(len(policies))
    for i, slo in enumerate(slos):
        means, low, high = [], [], []
        for policy in policies:
            row = summary[(summary["policy"] == policy) & (summary["slo_index"] == i)][0]
            m = float(row["capacity_mean_qps"])
            means.append(m)
            lo, hi = float(row["capacity_ci95_low_qps"]), float(row["capacity_ci95_high_qps"])
            low.append(0 if math.isnan(lo) else m - lo)
            high.append(0 if math.isnan(hi) else hi - m)
        ax.bar(x + (i - (len(slos) - 1) / 2) * width, means, width, yerr=[low, high], capsize=4,
               label="SLO " + text(slo["label"]))
    ax.set_xticks(x, policies)
    ax.set_ylabel("capacity (QPS), mean and 95% CI over seeds")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, "capacity.png")


def plot_replica_load(points, replica_requests, policies, reference, out_dir):
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
    return save(fig, out_dir, "replica_load.png")


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


def plot_hit_rate_over_time(by_policy, qps, warmup_s, out_dir):
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
    return save(fig, out_dir, "hit_rate_over_time.png")


def plot_queue_over_time(by_policy, qps, warmup_s, out_dir):
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
    return save(fig, out_dir, "queue_over_time.png")


def plot_deployment_share(by_policy, qps, warmup_s, out_dir):
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
    return save(fig, out_dir, "deployment_share_over_time.png")


def warmup_seconds(scenario_yaml):
    """The scenario's warm-up, read from its text (default 30 s, as kvroute's)."""
    for line in scenario_yaml.splitlines():
        if line.startswith("warmup_s:"):
            try:
                return float(line.split(":", 1)[1].split("#")[0])
            except ValueError:
                break
    return 30.0


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: plot_report.py FILE.h5 DIR [QPS]")
    path, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    with h5py.File(path, "r") as f:
        points = f["points"][:]
        summary = f["summary"][:]
        slos = f["slos"][:]
        replica_requests = f["replica_requests"][:]
        # Files of kvroute versions before the time series have neither table.
        series = f["timeseries"][:] if "timeseries" in f else None
        deployments = f["deployment_series"][:] if "deployment_series" in f else None
        warmup_s = warmup_seconds(text(f.attrs.get("scenario_yaml", b"")))
    # Strings come back as bytes; compare them as str.
    points = {name: points[name] for name in points.dtype.names}
    points["policy"] = np.array([text(p) for p in points["policy"]])
    summary_policy = np.array([text(p) for p in summary["policy"]])
    summary = {name: summary[name] for name in summary.dtype.names}
    summary["policy"] = summary_policy
    summary = np.rec.fromarrays(list(summary.values()), names=list(summary.keys()))
    policies = policies_in_order(list(points["policy"]))
    reference = float(summary["reference_qps"][0]) if len(summary) else float("nan")
    written = [
        plot_slos(points, policies, slos, out_dir),
        plot_hit_rate(points, policies, out_dir),
        plot_capacity(summary, policies, slos, out_dir),
        plot_replica_load(points, replica_requests, policies, reference, out_dir),
    ]
    qps = float(sys.argv[3]) if len(sys.argv) == 4 else reference
    if not (points["qps"] == qps).any():
        sys.exit("%s: no point at %g QPS (loads: %s)" % (
            path, qps, ", ".join("%g" % q for q in sorted(set(points["qps"])))))
    if series is not None and len(series):
        by_policy = series_by_policy(points, series, policies, qps)
        written.append(plot_hit_rate_over_time(by_policy, qps, warmup_s, out_dir))
        written.append(plot_queue_over_time(by_policy, qps, warmup_s, out_dir))
    if deployments is not None and len(deployments):
        by_policy = series_by_policy(points, deployments, policies, qps)
        written.append(plot_deployment_share(by_policy, qps, warmup_s, out_dir))
    for w in written:
        print(w)


if __name__ == "__main__":
    main()
