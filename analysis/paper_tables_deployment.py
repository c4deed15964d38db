"""Paper tables of the deployment-facing experiments: burstiness (seed 003 §5.6), cluster
size (appendix Table 14) and canary shifting (seed 000); analysis/paper_tables.py prints them
with the others."""
import json
import math
import os
import re

from paper_claims import claims, value_claims
from paper_results import load, table
from paper_stats import Stats, below_load_verdict, paired_ratio


def interarrival_cv(d, name):
    """The requests' inter-arrival CV as `kvroute workload-stats` measured it (NAME.workload.txt)."""
    path = os.path.join(d, name + ".workload.txt")
    if not os.path.exists(path):
        return math.nan
    with open(path) as f:
        m = re.search(r"inter-arrival CV +(\S+)", f.read())
    return float(m.group(1)) if m else math.nan


def burstiness(d):
    """§5.6: Flat-LB and CacheRoute under Poisson, gamma and bootstrapped arrivals. The Poisson
    reference is `bursty_poisson` (the flagship's two policies; the same requests as their rows
    of `flagship_synthetic`), or `flagship_synthetic` itself."""
    poisson_name = next((n for n in ("bursty_poisson", "flagship_synthetic") if load(d, n)), None)
    if not (load(d, "bursty_gamma") or load(d, "bursty_bootstrap")):
        return ""
    paper = {("poisson", "cacheroute"): "176–180", ("poisson", "flat_lb"): "42",
             ("bursty_gamma", "cacheroute"): "160", ("bursty_gamma", "flat_lb"): "30",
             ("bursty_bootstrap", "cacheroute"): "~180 (93% hit)",
             ("bursty_bootstrap", "flat_lb"): "<30"}
    labels = {"poisson": "Poisson", "bursty_gamma": "gamma",
              "bursty_bootstrap": "moving-block bootstrap (Azure code gaps)"}
    rows = []
    for key, name in (("poisson", poisson_name), ("bursty_gamma", "bursty_gamma"),
                      ("bursty_bootstrap", "bursty_bootstrap")):
        run = load(d, name) if name else None
        if not run:
            continue
        cv = interarrival_cv(d, name)
        for p in ("flat_lb", "cacheroute"):
            rows.append([labels[key], f"{cv:.2f}", p, run.hit(p, run.reference_qps()),
                         run.cap(p, 3.5), paper[(key, p)]])
    out = "### Burstiness (§5.6)\n\n" + table(
        ["arrivals", "request inter-arrival CV", "policy", "hit @ref", "cap @3.5 s", "paper"],
        rows)
    base = load(d, poisson_name) if poisson_name else None
    gamma, boot = load(d, "bursty_gamma"), load(d, "bursty_bootstrap")
    rows = []
    if base and gamma:  # paired by seed across runs: the same sessions, other arrival times
        rows += [("gamma: CacheRoute's capacity / its Poisson capacity",
                  paired_ratio(gamma.seeds("cacheroute", 3.5), base.seeds("cacheroute", 3.5)),
                  160 / 180, 160 / 176),
                 ("gamma: Flat-LB's capacity / its Poisson capacity",
                  paired_ratio(gamma.seeds("flat_lb", 3.5), base.seeds("flat_lb", 3.5)), 30 / 42)]
    if gamma:
        rows.append(("gamma: CacheRoute / Flat-LB", gamma.ratio("cacheroute", "flat_lb", 3.5),
                     160 / 30))
    if base and boot:
        rows += [("bootstrap: CacheRoute's capacity / its Poisson capacity (unaffected)",
                  paired_ratio(boot.seeds("cacheroute", 3.5), base.seeds("cacheroute", 3.5)), 1.0),
                 ("bootstrap: Flat-LB's capacity / its Poisson capacity (published < 30 / 42)",
                  paired_ratio(boot.seeds("flat_lb", 3.5), base.seeds("flat_lb", 3.5)), 30 / 42)]
    if boot:  # published ~180 against < 30: a lower bound, taken as 6
        rows.append(("bootstrap: CacheRoute / Flat-LB (published ≥ 180 / 30)",
                     boot.ratio("cacheroute", "flat_lb", 3.5), 180 / 30))
    return out + ("\n" + claims(rows) if rows else "")


def cluster_size(d):
    paper = {"8": "nothing passes", "30": "4.44× (70% vs 14% hit)", "60": "no advantage"}
    rows = []
    for r, name in (("8", "cluster_r8"), ("30", "regime_win"), ("60", "cluster_r60")):
        run = load(d, name)
        if not run:
            continue
        q = run.reference_qps()
        rows.append([r, run.hit("flat_lb", q), run.hit("cacheroute", q), run.cap("flat_lb", 3.5),
                     run.cap("cacheroute", 3.5), run.ratio("cacheroute", "flat_lb", 3.5).text(2, "×"), paper[r]])
    published = {"cluster_r8": None, "regime_win": 4.44, "cluster_r60": 1.0}
    verdicts = claims([(f"R = {r}: CacheRoute / Flat-LB", run.ratio("cacheroute", "flat_lb", 3.5),
                        published[name])
                       for r, name in (("30", "regime_win"), ("60", "cluster_r60"))
                       for run in [load(d, name)] if run])
    # R = 8, "nothing passes": no ratio to test; reproduced when every seed of the policy fails
    # the paper's first load (30 QPS, the R = 30 grid's), i.e. its capacity is below it.
    small = load(d, "cluster_r8")
    if small:
        out = []
        for p in ("flat_lb", "cacheroute"):
            seeds = small.seeds(p, 3.5)
            below, said = below_load_verdict(seeds, 30)
            out.append([f"R = 8: {p} passes no load of 30 QPS or more", "nothing passes",
                        f"{small.cap(p, 3.5)}; below 30 QPS at {below}/{len(seeds)} seeds",
                        f"**{said}**"])
        verdicts += "\n" + table(["claim", "paper", "kvroute capacity", "verdict"], out)
    # Each R's reference load is 4 QPS per destination (32, 120, 240), so hit rates compare.
    return "### Cluster size (appendix Table 14)\n\n" + verdicts + "\n" + table(
        ["R", "Flat-LB hit @4 QPS per destination", "CacheRoute hit @4 QPS per destination",
         "Flat-LB cap", "CacheRoute cap", "ratio", "paper"], rows)


CANARY_SHIFT_S = 120  # canary.yaml: deployment B's weight becomes 9 at 120 s


def canary_series(d):
    """Deployment B's 10 s buckets of the canary runs: {"10": [...], "0": [...], "chat": [...]}
    (chat only when run), or None."""
    out = {}
    for key, name in (("10", "canary_lambda10"), ("0", "canary_lambda0"),
                      ("chat", "canary_chat_prompts")):
        path = os.path.join(d, name + ".json")
        if not os.path.exists(path):
            if key == "chat":
                continue
            return None
        with open(path) as f:
            out[key] = [s for s in json.load(f)["deployment_series"] if s["deployment_name"] == "B"]
    return out


def canary(d):
    """Seed 000's claims on the canary's split, over the 10 s buckets after the shift."""
    series = canary_series(d)
    if series is None:
        return ""
    # One time series: the 10 s buckets after the shift are the samples of each claim.
    after = {lam: [s for s in series[lam] if s["start_s"] >= CANARY_SHIFT_S] for lam in ("10", "0")}
    last = [s for s in after["10"] if s["start_s"] >= after["10"][-1]["start_s"] - 50]
    verdicts = value_claims([
        ("λ_h = 10: B's share of the prompts only A holds, per 10 s bucket after the shift",
         Stats([100 * s["cold_hit_elsewhere_taken"] / s["cold_hit_elsewhere"]
                for s in after["10"] if s["cold_hit_elsewhere"]]), 100 * 9 / (2**10 + 9), "%"),
        ("λ_h = 10: B's share of all requests converges to 90% (the last 60 s)",
         Stats([100 * s["share"] for s in last]), 90.0, "%"),
        ("λ_h = 0: B takes 90% at once (every bucket after the shift)",
         Stats([100 * s["share"] for s in after["0"]]), 90.0, "%"),
    ], over="10 s buckets")
    return "### Canary shifting (seed 000): deployment B's share after the shift\n\n" + verdicts


def canary_buckets(d):
    """Deployment B's share and hit rate per 10 s bucket, from the bucket before the shift."""
    series = canary_series(d)
    if series is None:
        return ""

    def pct(v):
        return "—" if v is None else f"{100 * v:.2f}%"

    def cold(s):  # of prompts A holds entirely and B not at all, B's share (the seed's case)
        return pct(s["cold_hit_elsewhere_taken"] / s["cold_hit_elsewhere"]) \
            if s["cold_hit_elsewhere"] else "—"

    chat = series.get("chat", [])
    rows = []
    for i, (a, b) in enumerate(zip(series["10"], series["0"])):
        if a["start_s"] < CANARY_SHIFT_S - 10:
            continue
        rows.append([f"{a['start_s']:g}", pct(a["share"]), cold(a), pct(a["token_hit_rate"]),
                     pct(b["share"]), pct(b["token_hit_rate"])] +
                    ([pct(chat[i]["share"]), pct(chat[i]["token_hit_rate"])] if chat else []))
    return ("### Canary shifting (seed 000): deployment B per 10 s bucket\n\n"
            "Seed 000: with λ_h = 10 a prompt only A holds goes to B with probability "
            "9/(2^10+9) = 0.87% until B holds it too; B's overall share rises towards 90% as "
            "it warms. With λ_h = 0 the split is 1:9 at once and B recomputes.\n\n") + table(
        ["bucket start (s)", "B share (λ=10)", "B share of prompts only A holds (λ=10)",
         "B hit (λ=10)", "B share (λ=0)", "B hit (λ=0)"] +
        (["B share (λ=10, chat prompts)", "B hit (λ=10, chat prompts)"] if chat else []), rows)
