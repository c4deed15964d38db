"""Verdict tables of the paper tables (analysis/paper_tables.py): a published value beside
kvroute's mean [95% CI] and the verdict of analysis/paper_stats.py's rule."""
from paper_results import table
from paper_stats import Stats, digits_near, published_text, verdict


def ratio_text(stats):
    """A ratio's mean [95% CI] with a "×", one digit more where a bound would print as 1.00."""
    return stats.text(digits_near(stats), "×")


def claims(rows, header="claim (capacity ratio)"):
    """A verdict table: rows of (claim, ratio Stats, published ratio low[, high])."""
    out = []
    for claim, stats, *published in rows:
        out.append([claim, published_text(*published), ratio_text(stats),
                    f"**{verdict(stats, *published)}**"])
    return table([header, "paper", "kvroute: mean [95% CI] over seeds", "verdict"], out)


def value_claims(rows, over="seeds"):
    """A verdict table on published values that are not ratios (a share, a cost in points):
    rows of (claim, Stats over seeds, published value, unit); "no effect" is 0."""
    out = [[claim, f"{published:.3g}{unit}", stats.text(digits_near(stats, 0, 1), unit),
            f"**{verdict(stats, published, null=0)}**"] for claim, stats, published, unit in rows]
    return table(["claim", "paper", f"kvroute: mean [95% CI] over {over}", "verdict"], out)


def seed_stats(values, scale=1.0):
    """Stats over the seeds of a {seed: value} dict."""
    return Stats([scale * v for _, v in sorted(values.items())])
