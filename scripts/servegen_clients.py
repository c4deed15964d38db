#!/usr/bin/env python3
"""Cuts a kvroute clients file (workload.clients, docs/WORKLOADS.md "Per-client arrivals") out of
one ServeGen model directory (github.com/alibaba/ServeGen, data/language/<model>, Apache-2.0):
the windows of [--start-s, --start-s + --hours h) of the --top clients with the most requests in
that span, hottest first, every window written (idle ones with rate 0 and no pattern), floats
rounded to --digits significant digits.

    scripts/servegen_clients.py DIR --start-s 0 --hours 24 --top 16 --out FILE [--source TEXT]

--source is written into the file's comment line (where DIR came from) for its provenance.
"""
import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
from servegen import WINDOW_S, read_model  # noqa: E402

HEADER = "client,window_start_s,rate,cv,pattern,shape,scale"


def significant(value, digits):
    return "0" if value == 0 else f"{value:.{digits}g}"


def cut(clients, start_s, end_s, top):
    """[(client, [windows in span])] of the `top` clients with the most requests in the span,
    most first (ties by client id)."""
    spans = {}
    for client, windows in clients.items():
        inside = [w for w in windows if start_s <= w.start_s < end_s]
        if len(inside) != (end_s - start_s) // WINDOW_S:
            raise ValueError(f"client {client}: its windows do not cover [{start_s}, {end_s}) s")
        spans[client] = inside
    requests = {c: sum(w.rate * WINDOW_S for w in ws) for c, ws in spans.items()}
    order = sorted(spans, key=lambda c: (-requests[c], c))[:top]
    total = sum(requests.values())
    return [(c, spans[c]) for c in order], sum(requests[c] for c in order) / total if total else 0


def write(path, picked, comment, digits):
    lines = [f"# {comment}", HEADER]
    for client, windows in picked:
        for w in windows:
            if w.pattern:
                row = [significant(v, digits) for v in (w.rate, w.cv)] + [w.pattern] + [
                    significant(v, digits) for v in (w.shape, w.scale)]
            else:
                row = ["0", "0", "", "0", "0"]
            lines.append(",".join([str(client), str(w.start_s)] + row))
    temporary = pathlib.Path(str(path) + ".tmp")
    temporary.write_text("\n".join(lines) + "\n")
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="a ServeGen model directory of chunk-*-trace.csv")
    parser.add_argument("--start-s", type=int, default=0, help="first second kept (window edge)")
    parser.add_argument("--hours", type=float, default=24, help="hours kept from --start-s")
    parser.add_argument("--top", type=int, default=16, help="clients kept, most requests first")
    parser.add_argument("--digits", type=int, default=4, help="significant digits of floats")
    parser.add_argument("--source", default=None, help="where DIRECTORY came from, for the comment")
    parser.add_argument("--out", required=True, help="the clients file to write")
    args = parser.parse_args()
    end_s = args.start_s + round(args.hours * 3600)
    if args.start_s % WINDOW_S or (end_s - args.start_s) % WINDOW_S or end_s <= args.start_s:
        parser.error(f"--start-s and --hours must cut whole {WINDOW_S} s windows")
    if args.top < 1:
        parser.error("--top must be at least 1")
    try:
        picked, share = cut(read_model(args.directory), args.start_s, end_s, args.top)
    except ValueError as error:
        sys.exit(f"servegen_clients.py: {error}")
    source = args.source or args.directory
    comment = (f"ServeGen per-client windows from {source} (Apache-2.0):"
               f" [{args.start_s}, {end_s}) s, top {len(picked)} clients by requests"
               f" ({share:.1%} of all), hottest first; cut by scripts/servegen_clients.py"
               f" --start-s {args.start_s} --hours {args.hours:g} --top {args.top}"
               f" --digits {args.digits}")
    write(args.out, picked, comment, args.digits)
    print(f"{args.out}: {len(picked)} clients, {share:.1%} of the span's requests")


if __name__ == "__main__":
    main()
