"""Paper tables of the parameter sweeps that are not the paper's own tables: the W (warm-slot)
sweep beside appendix Table 13 (`qcap_wsweep`) and seed 000's instance-level selection
(`instance_selection`); analysis/paper_tables.py prints them with the others."""
import re

from paper_claims import claims, ratio_text
from paper_results import load, table
from paper_stats import digits_near

WSWEEP_LABEL = re.compile(r"W(\d+)$")  # scripts/reproduce.sh labels the rows W0, W2, ...


def wsweep(d):
    """CacheRoute at the no-head workload's calibrated q_cap with W swept; the paper's ~1.50×
    over Flat-LB (appendix Table 13) is tested at every W."""
    run = load(d, "qcap_wsweep")
    if not run:
        return ""
    q = run.reference_qps()
    rows = [["— (`flat_lb`)", "—", run.hit("flat_lb", q), run.cap("flat_lb", 3.5), "—"]]
    verdicts = []
    labelled = sorted(((int(m.group(1)), p) for p in run.policies()
                       for m in [WSWEEP_LABEL.match(p)] if m))
    for w, p in labelled:
        ratio = run.ratio(p, "flat_lb", 3.5)
        rows.append([str(w), run.at(p, q, "plan_admitted_keys", 1, 0), run.hit(p, q),
                     run.cap(p, 3.5), ratio_text(ratio)])
        verdicts.append((f"W = {w}: CacheRoute / Flat-LB", ratio, 1.5))
    return (f"### W (warm-slot) sweep at the no-head workload's calibrated q_cap, "
            f"{run.seed_count()} paired seeds; hit at {q:g} QPS\n\n" +
            table(["W", "admitted keys", "hit", "cap @3.5 s", "vs flat_lb"], rows) + "\n" +
            claims(verdicts))


SELECTION_ROWS = [
    ("round_robin", "`round_robin` (uniform, cache-blind)"),
    ("least_loaded", "`least_loaded`, `measure: work` (cheapest, cache-blind)"),
    ("softmax_1ms", "`softmax`, Δ = 1 ms (nearly always the cheapest)"),
    ("softmax_5ms", "`softmax`, Δ = 5 ms"),
    ("softmax_20ms", "`softmax`, Δ = 20 ms (the seed's example)"),
    ("softmax_80ms", "`softmax`, Δ = 80 ms"),
    ("softmax_320ms", "`softmax`, Δ = 320 ms (nearly uniform)"),
    ("flexlb", "`flexlb` (uniform within max(0.1 S_min, 20 ms))"),
]


def instance_selection(d):
    """Seed 000's instance-level selection: capacity at p99 TTFT ≤ 2 s against round robin's,
    hit rate, imbalance and p99 at the reference load. The seed gives no numbers: no verdicts."""
    run = load(d, "instance_selection")
    if not run:
        return ""
    q = run.reference_qps()
    rows = []
    for policy, label in SELECTION_ROWS:
        if policy not in run.policies():
            continue
        ratio = run.ratio(policy, "round_robin", 2)
        rows.append([label, run.cap(policy, 2),
                     "1.00" if policy == "round_robin" else ratio.text(digits_near(ratio)),
                     run.hit(policy, q), run.at(policy, q, "imbalance", 1, 3),
                     run.at(policy, q, "ttft_p99_s", 1, 3, " s")])
    return (f"### Seed 000: instance-level selection, {run.seed_count()} paired seeds; hit, "
            f"imbalance and p99 TTFT at {q:g} QPS\n\n" +
            table(["policy", "capacity, QPS", "vs round robin", "hit rate", "imbalance",
                   f"p99 TTFT at {q:g} QPS"], rows))
