#!/usr/bin/env python3
"""Writes what one call of scripts/reproduce.sh made into docs/REPRODUCING.md and
docs/reproducing/: every generated block and every figure, so that the pages hold the numbers
of one run and nothing typed by hand between them.

A generated block sits between `<!-- BEGIN reproduce WHAT -->` and `<!-- END reproduce WHAT -->`,
WHAT being one of
    section NAME    a section of analysis/paper_tables.py (NAME is its function), with the
                    generated workload of each of its runs, its title as a bold caption;
    file NAME.md    OUT/NAME.md as an experiment script printed it (affinity_map, residency,
                    drift_latency, canary_latency, canary_convergence, regimes);
    timings         OUT/timings.txt, each run's wall and CPU time;
    calibrations    CacheRoute's q_cap and W in each run of OUT, as its resolved scenario
                    (OUT/NAME.h5, provenance) holds them.
The prose around the blocks is written by hand and must be read again after a run.

    scripts/update_reproducing.py OUT [--check]

--check changes nothing and exits with 1 when a page or figure would change (or a block names
something OUT lacks), listing them.
"""
import argparse
import filecmp
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
import h5py  # noqa: E402
import paper_tables  # noqa: E402

DOCS = [ROOT / "docs/REPRODUCING.md"] + sorted((ROOT / "docs/reproducing").glob("*.md"))
BLOCK = re.compile(r"(<!-- BEGIN reproduce (?P<what>[^>]*?) -->\n)(.*?)(<!-- END reproduce (?P=what) -->)",
                   re.S)
# docs/reproducing/NAME.png <- OUT/PATH
FIGURES = {
    "flagship_slo_vs_load.png": "plots/flagship_synthetic/slo_vs_load.png",
    "flagship_capacity.png": "plots/flagship_synthetic/capacity.png",
    "ablation_replica_load.png": "plots/ablation/replica_load.png",
    "drift_hit_rate_over_time.png": "plots/drift/hit_rate_over_time.png",
    "revisit_times.png": "residency/revisit_times.png",
    "affinity_map.png": "affinity_map/affinity_map.png",
    "regimes.png": "plots/regimes.png",
}


def calibrations(out):
    """A table of the q_cap and W values of every CacheRoute entry of every run in `out` and in
    the experiment scripts' directories below it (the affinity map's cells)."""
    rows = []
    for path in sorted(out.rglob("*.h5")):
        with h5py.File(path, "r") as f:
            resolved = f["provenance"]["resolved_scenario_yaml"][()]
        text = resolved.decode() if isinstance(resolved, bytes) else str(resolved)
        entries = [line for line in text.splitlines() if re.match(r"\s*- \{name: cacheroute\b", line)]
        if not entries:
            continue

        def values(key):
            found = {m.group(1) for line in entries for m in [re.search(key + r": ([^,}]+)", line)]
                     if m}
            return ", ".join(sorted(found, key=float))

        name = path.relative_to(out).with_suffix("").as_posix()
        rows.append(f"| `{name}` | {values('q_cap')} | {values('slots_per_replica')} |")
    if not rows:
        raise LookupError("calibrations")
    return "| run | q_cap (req/s) | W (slots per replica) |\n|---|---|---|\n" + "\n".join(rows) + "\n"


def captioned(section):
    """The section with its "### title" as a bold caption: the pages have headings of their own."""
    return re.sub(r"^### (.*)$", r"**\1.**", section, count=1, flags=re.M)


def generated(out, what):
    """The text of the block WHAT, from the results in `out`."""
    kind, _, name = what.partition(" ")
    if kind == "section":
        text = captioned(paper_tables.section(str(out), name))
    elif kind == "file":
        path = out / name
        text = path.read_text() if path.exists() else ""
    elif kind == "timings":
        text = paper_tables.timings(str(out))
    elif kind == "calibrations":
        text = calibrations(out)
    else:
        raise LookupError(what)
    if "|" not in text and "```" not in text:
        raise LookupError(what)
    return text if text.endswith("\n") else text + "\n"


def update(out, docs, figures, check):
    """Fills every generated block of `docs` from `out` and copies the figures into the
    directory `figures`, unless `check`; returns (the paths that change, what `out` lacks)."""
    changed, missing = [], []

    def fill(match):
        try:
            return match.group(1) + generated(out, match.group("what")) + match.group(4)
        except (LookupError, OSError):
            missing.append(match.group("what"))
            return match.group(0)

    for doc in docs:
        old = doc.read_text()
        new = BLOCK.sub(fill, old)
        if new != old:
            changed.append(doc)
            if not check:
                doc.write_text(new)
    for name, source in FIGURES.items():
        source, target = out / source, figures / name
        if not source.exists():
            missing.append(str(source.relative_to(out)))
        elif not (target.exists() and filecmp.cmp(source, target, shallow=False)):
            changed.append(target)
            if not check:
                shutil.copyfile(source, target)
    return changed, missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path, help="the directory reproduce.sh wrote")
    parser.add_argument("--check", action="store_true", help="change nothing; fail on a difference")
    args = parser.parse_args()
    changed, missing = update(args.out, DOCS, ROOT / "docs/reproducing", args.check)
    for what in missing:
        print(f"{args.out}: nothing for '{what}'", file=sys.stderr)
    for path in changed:
        print(("differs: " if args.check else "updated ") + str(path.relative_to(ROOT)))
    sys.exit(1 if missing or (args.check and changed) else 0)


if __name__ == "__main__":
    main()
