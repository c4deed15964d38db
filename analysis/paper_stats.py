"""Paired capacity statistics and mechanical verdicts for docs/REPRODUCING.md.

The one place where the reproduction's numbers become claims (issue 13):
- a policy's capacity at one seed is the bracket [highest passing load, lowest
  failing load) that `kvroute run` bisects (sweep.precision_qps); a censored
  seed gives only a bound (< the lowest load, ≥ the highest) and is never
  averaged as if exact;
- a capacity ratio is computed per seed (both policies saw the same requests)
  and then summarised: mean and two-sided 95% Student-t CI over the seeds where
  neither side is censored; the censored seeds are counted and their bounds
  shown, and they take no part in the verdict;
- a seed's capacity is known only to its bracket, and so is a ratio of two
  (a/b lies in [a_low / b_high, a_high / b_low]): the point is the highest
  passing load (or the ratio of two), and the CI runs from the lower 97.5%
  Student-t bound of the brackets' lower ends to the upper bound of their
  upper ends. Since the mean of the true values lies between the means of the
  lower and the upper ends, this covers it with at least 95%; where every seed
  lands in the same bracket the CI is that bracket, never a single point;
- the verdict on a published ratio r (or range [r_lo, r_hi]) follows from the
  CI alone:
    reproduced       the CI excludes 1 on the side of r and overlaps
                     [r_lo / 1.5, r_hi × 1.5];
    direction only   the CI excludes 1 on the side of r but misses that band;
    not reproduced   otherwise, including fewer than two uncensored seeds.
  A published tie (a range holding 1, e.g. "1.0×") is reproduced when the CI
  holds 1 and lies within [r_lo / 1.5, r_hi × 1.5]; a tie has no direction.
  A published quantity that is not a ratio (a share, or a cost in points,
  whose "no effect" is 0) takes the same rule with 0 in place of 1.
- a published "no capacity" (nothing passes the paper's grid, whose first load
  is L) has no ratio to test: it is reproduced when at every seed the
  capacity is known to lie below L (the seed fails L or a lower load), and
  not reproduced otherwise.

Pure Python (no NumPy), so that tests/analysis/paper_stats_test.py runs
anywhere the test suite does.
"""
import math
from dataclasses import dataclass, field

# Two-sided 95% Student-t quantiles t(0.975, df), df = 1..30; beyond, the
# normal 1.96 (within 2% from df = 31 on).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

TOLERANCE = 1.5  # a reproduced ratio lies within ×/÷ this of the published one


def t975(df):
    return _T975[df - 1] if df <= len(_T975) else 1.96


@dataclass
class Seed:
    """One seed's capacity: lower ≤ capacity < upper; censored seeds are bounds."""
    lower: float
    upper: float
    left: bool = False   # capacity < upper (the lowest load failed)
    right: bool = False  # capacity ≥ lower (the highest load passed)

    @property
    def censored(self):
        return self.left or self.right


def _mean(values):
    return sum(values) / len(values) if values else math.nan


def _half_width(values):
    """The 95% Student-t half-width of the mean of `values` (nan below two)."""
    n = len(values)
    if n < 2:
        return math.nan
    m = _mean(values)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    return t975(n - 1) * sd / math.sqrt(n)


@dataclass
class Stats:
    """Mean and 95% CI over the uncensored seeds, with the censored ones counted. Where each
    value is known only to an interval (a bisection bracket), `lows` and `highs` hold its ends,
    one per value, and the CI covers them (module docstring); without them the values are
    exact."""
    values: list
    censored: list = field(default_factory=list)  # text bounds, one per censored seed
    lows: list = None
    highs: list = None

    @property
    def n(self):
        return len(self.values)

    @property
    def mean(self):
        return _mean(self.values)

    @property
    def half_width(self):
        """Of the values as exact (the CI of bracketed values is `ci`)."""
        return _half_width(self.values)

    @property
    def ci(self):
        lows = self.values if self.lows is None else self.lows
        highs = self.values if self.highs is None else self.highs
        return _mean(lows) - _half_width(lows), _mean(highs) + _half_width(highs)

    def text(self, digits=1, unit=""):
        """'mean [low, high]' plus the censored seeds, e.g. '176.2 [171.0, 181.4] (1/5 ≥ 220)'."""
        parts = []
        if self.values:
            lo, hi = self.ci
            parts.append(f"{self.mean:.{digits}f}{unit}" + (
                f" [{lo:.{digits}f}, {hi:.{digits}f}]" if math.isfinite(lo) else ""))
        seeds = self.n + len(self.censored)
        if self.censored:
            bounds = ", ".join(sorted(set(self.censored)))
            note = f"{len(self.censored)}/{seeds} censored: {bounds}"
            parts.append(f"({note})" if self.values else note)
        return " ".join(parts) if parts else "—"


def digits_near(stats, null=1.0, digits=2):
    """`digits`, or one more when a CI bound would print as the null without being it (a CI
    that excludes 1 must not read "[0.96, 1.00]")."""
    for bound in stats.ci if stats.n >= 2 else ():
        if math.isfinite(bound) and bound != null and round(bound, digits) == null:
            return digits + 1
    return digits


def capacity_stats(seeds):
    """Capacities of one policy over seeds (dict seed -> Seed)."""
    s = Stats([], lows=[], highs=[])
    for c in seeds.values():
        if c.left:
            s.censored.append(f"< {c.upper:g}")
        elif c.right:
            s.censored.append(f"≥ {c.lower:g}")
        else:
            s.values.append(c.lower)
            s.lows.append(c.lower)
            s.highs.append(c.upper)
    return s


def widest_bracket(seeds):
    """The widest uncensored bracket, relative to its lower end (0.02 = 2%), and in QPS."""
    rel, qps = 0.0, 0.0
    for c in seeds.values():
        if not c.censored and c.lower > 0:
            rel, qps = max(rel, (c.upper - c.lower) / c.lower), max(qps, c.upper - c.lower)
    return rel, qps


def best_of(policies):
    """Per seed, the best of several policies' capacities (the best baseline at the same
    requests): censored when the maximum is only a bound."""
    out = {}
    for seed in set.intersection(*(set(p) for p in policies)):
        caps = [p[seed] for p in policies]
        right = [c for c in caps if c.right]
        exact = [c for c in caps if not c.censored]
        if right:
            out[seed] = Seed(max(c.lower for c in right), math.inf, right=True)
        elif exact:
            out[seed] = max(exact, key=lambda c: c.lower)
        else:
            out[seed] = Seed(0, min(c.upper for c in caps), left=True)
    return out


def ratio_bound(num, den):
    """What a censored pair says about num/den, as text."""
    if num.right and not den.censored:
        return f"≥ {num.lower / den.lower:.2f}"
    if num.left and not den.censored and den.lower > 0:
        return f"< {num.upper / den.lower:.2f}"
    if den.right and not num.censored:
        return f"< {num.upper / den.lower:.2f}" if den.lower > 0 else "unbounded"
    if den.left and not num.censored:
        return f"> {num.lower / den.upper:.2f}"
    return "unbounded"


def paired_ratio(num, den):
    """num/den per seed over the seeds both have (dicts seed -> Seed). A capacity over itself is
    exactly 1, whatever its bracket."""
    s = Stats([], lows=[], highs=[])
    for seed in sorted(set(num) & set(den)):
        a, b = num[seed], den[seed]
        if a.censored or b.censored or b.lower <= 0:
            s.censored.append(ratio_bound(a, b))
        else:
            same = num is den
            s.values.append(a.lower / b.lower)
            s.lows.append(1.0 if same else a.lower / b.upper)
            s.highs.append(1.0 if same else a.upper / b.lower)
    return s


def verdict(stats, published_low, published_high=None, null=1.0):
    """The verdict on a published ratio (or range) from the CI of `stats` (module docstring);
    `null` is the value meaning "no effect": 1 for a ratio, 0 for a share or a difference."""
    high = published_low if published_high is None else published_high
    band_low, band_high = published_low / TOLERANCE, high * TOLERANCE
    lo, hi = stats.ci
    if stats.n < 2 or not (math.isfinite(lo) and math.isfinite(hi)):
        return "not reproduced"
    if published_low <= null <= high:  # a published tie
        return "reproduced" if band_low <= lo <= null <= hi <= band_high else "not reproduced"
    same_side = lo > null if published_low > null else hi < null
    if not same_side:
        return "not reproduced"
    return "reproduced" if lo <= band_high and hi >= band_low else "direction only"


def below_load_verdict(seeds, load):
    """The verdict on a published "no capacity" for one policy (dict seed -> Seed): how many
    seeds' capacities lie below `load`, the paper's first load, and the verdict."""
    below = sum(1 for c in seeds.values() if not c.right and c.upper <= load)
    return below, ("reproduced" if seeds and below == len(seeds) else "not reproduced")


def published_text(published_low, published_high=None):
    if published_high is None or published_high == published_low:
        return f"{published_low:.2f}×"
    return f"{published_low:.2f}–{published_high:.2f}×"
