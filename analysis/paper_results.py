"""Reading the results scripts/reproduce.sh writes, for analysis/paper_tables.py.

A `Run` is one `kvroute run` HDF5 file: per-point metrics (mean ± 95% CI over the
paired seeds at one load), per-seed capacities (analysis/paper_stats.py turns them
into capacity statistics, paired ratios and verdicts) and the time series.
"""
import math
import os

import h5py
import numpy as np

from paper_stats import (Seed, Stats, best_of, capacity_stats, paired_ratio, t975,
                         widest_bracket)

# A capacity is resolved when its bracket is at most 2% of it wide, or 1 QPS (issue 13).
RESOLVED_SHARE, RESOLVED_QPS = 0.02, 1.0


def mean_ci(values):
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return float("nan"), float("nan")
    m = float(np.mean(values))
    if len(values) < 2:
        return m, float("nan")
    half = t975(len(values) - 1) * float(np.std(values, ddof=1)) / math.sqrt(len(values))
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
            self.capacity = f["capacity"][()]
            self.summary = f["summary"][()]
            self.slos = f["slos"][()]

    def policies(self):
        seen = []
        for p in self.summary["policy"]:
            p = p.decode()
            if p not in seen:
                seen.append(p)
        return seen

    def seed_count(self):
        return len(set(int(s) for s in self.capacity["seed"]))

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

    def hit(self, policy, qps):
        return self.at(policy, qps, "token_hit_rate", 100, 1, "%")

    def reference_qps(self):
        return float(self.summary["reference_qps"][0])

    def seeds(self, policy, threshold):
        """{seed: Seed} of `policy` at the SLO `threshold`; a list of policies gives, per seed,
        the best of them."""
        if isinstance(policy, (list, tuple)):
            return best_of([self.seeds(p, threshold) for p in policy])
        rows = self.capacity[(self.capacity["policy"] == policy.encode())
                             & (self.capacity["slo_index"] == self.slo_index(threshold))]
        return {int(r["seed"]): Seed(float(r["capacity_qps"]), float(r["capacity_upper_qps"]),
                                     bool(r["left_censored"]), bool(r["right_censored"]))
                for r in rows}

    def cap(self, policy, threshold):
        """Capacity: mean [95% CI] over the uncensored seeds, censored seeds counted with their
        bounds; '†' when some seed's bracket is wider than 2% (or 1 QPS)."""
        seeds = self.seeds(policy, threshold)
        rel, qps = widest_bracket(seeds)
        mark = "" if rel <= RESOLVED_SHARE or qps <= RESOLVED_QPS else " †"
        return capacity_stats(seeds).text(digits=1) + mark

    def ratio(self, num, den, threshold):
        """Paired ratio statistics (paper_stats.Stats) of num's capacity over den's (exactly 1
        when they are the same policy)."""
        den_seeds = self.seeds(den, threshold)
        return paired_ratio(den_seeds if num == den else self.seeds(num, threshold), den_seeds)

    def per_seed(self, policy, qps, column):
        """{seed: value} of one point column at one grid load."""
        rows = self.points[(self.points["policy"] == policy.encode()) & (self.points["qps"] == qps)
                           & (self.points["refinement_round"] == 0)]
        return {int(r["seed"]): float(r[column]) for r in rows}

    def series_by_seed(self, policy, qps):
        """{seed: time-series rows} of the grid point at one load."""
        rows = np.flatnonzero((self.points["policy"] == policy.encode())
                              & (self.points["qps"] == qps) & (self.points["refinement_round"] == 0))
        return {int(self.points["seed"][row]): self.series[self.series["point"] == row]
                for row in rows}

    def rebuild_dips(self, policy, qps, interval_s):
        """Per seed, the hit-rate points lost in the series bucket after each control tick
        against the bucket before it, averaged over the seed's ticks: the re-warm cost of a
        new plan. A Stats over the seeds."""
        out = Stats([])
        for seed, mine in sorted(self.series_by_seed(policy, qps).items()):
            width = float(mine["start_s"][1] - mine["start_s"][0])
            rate = dict(zip(mine["start_s"], mine["token_hit_rate"]))
            dips, t = [], interval_s
            while t + width <= mine["start_s"][-1]:
                before, after = rate.get(t - width), rate.get(t)
                if before is not None and after is not None and math.isfinite(before - after):
                    dips.append(100 * (before - after))
                t += interval_s
            if dips:
                out.values.append(sum(dips) / len(dips))
        return out

    def interval_hits(self, policy, qps, interval_s, start_s):
        """{seed: [token hit rate of each interval_s-long interval from start_s]}, each the
        interval's hit tokens over its prompt tokens."""
        out = {}
        for seed, mine in self.series_by_seed(policy, qps).items():
            ends = float(mine["start_s"][-1]) + float(mine["start_s"][1] - mine["start_s"][0])
            hits, t = [], start_s
            while t + interval_s <= ends + 1e-9:
                inside = mine[(mine["start_s"] >= t) & (mine["start_s"] < t + interval_s)]
                prompt = float(np.sum(inside["prompt_tokens"]))
                hits.append(float(np.sum(inside["hit_tokens"])) / prompt if prompt > 0 else math.nan)
                t += interval_s
            out[seed] = hits
        return out

    def worst_interval_cost(self, worse, better, qps, interval_s, start_s):
        """Per seed, the largest hit-rate gap (points) of `better` over `worse` in any one
        interval (paired by seed and interval): the worst shift's cost. A Stats over seeds."""
        a = self.interval_hits(worse, qps, interval_s, start_s)
        b = self.interval_hits(better, qps, interval_s, start_s)
        out = Stats([])
        for seed in sorted(set(a) & set(b)):
            gaps = [100 * (y - x) for x, y in zip(a[seed], b[seed])
                    if math.isfinite(x) and math.isfinite(y)]
            if gaps:
                out.values.append(max(gaps))
        return out


def table(header, rows):
    if not rows:
        return ""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def load(directory, name):
    path = os.path.join(directory, name + ".h5")
    return Run(path) if os.path.exists(path) else None
