#!/usr/bin/env python3
"""Regenerates the parts of docs/*.md that kvroute prints.

A generated part sits between `<!-- BEGIN kvroute ARGS -->` and
`<!-- END kvroute ARGS -->` and is exactly what `kvroute ARGS` prints; the
docs test (tests/runner/docs_test.cc) fails when one differs. docs/CALIBRATION.md
is `kvroute profiles --markdown` as a whole, docs/VALIDATION.md `kvroute validation --markdown`.

    scripts/update_docs.py [path/to/kvroute]    # default build/release/kvroute
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/release/kvroute")
BLOCK = re.compile(r"(<!-- BEGIN kvroute (?P<args>[^>]*?) -->\n)(.*?)(<!-- END kvroute (?P=args) -->)",
                   re.S)


def kvroute(args):
    return subprocess.run([BINARY] + args.split(), check=True, capture_output=True, text=True,
                          cwd=ROOT).stdout


def main():
    for doc in sorted((ROOT / "docs").glob("*.md")):
        if doc.name == "CALIBRATION.md":
            text = kvroute("profiles --markdown")
        elif doc.name == "VALIDATION.md":
            text = kvroute("validation --markdown")
        else:
            text = BLOCK.sub(lambda m: m.group(1) + kvroute(m.group("args")) + m.group(4),
                             doc.read_text())
        if text != doc.read_text():
            doc.write_text(text)
            print("updated", doc.relative_to(ROOT))


if __name__ == "__main__":
    main()
