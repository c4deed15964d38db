#!/usr/bin/env python3
"""Writes a day's load shape from ServeGen's per-client windows as a kvroute `load_schedule`.

The shape is the expected requests of all of a model's clients in each 600 s window of one day
(analysis/servegen.py), divided by the day's mean, so the factors average exactly 1 and the
scenario's QPS is the day's mean load. scenarios/diurnal.yaml carries the output for m-large,
day 0 (ServeGen commit bdf8614, data/language/m-large):

  scripts/diurnal_shape.py SERVEGEN/data/language/m-large --day 0
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "analysis"))
import servegen  # noqa: E402

DAY_S = 86400


def shape(directory, day):
    """The day's 144 window factors, mean 1."""
    clients = servegen.read_model(directory)
    counts = servegen.requests_per_window(clients, day * DAY_S, (day + 1) * DAY_S)
    mean = sum(counts) / len(counts)
    if mean <= 0:
        raise ValueError(f"{directory}: no requests on day {day}")
    return [c / mean for c in counts], len(clients), sum(counts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="a ServeGen model directory of chunk-*-trace.csv files")
    parser.add_argument("--day", type=int, default=0, help="which day of the trace (0-based)")
    parser.add_argument("--per-line", type=int, default=3, help="schedule steps per YAML line")
    args = parser.parse_args()
    factors, clients, requests = shape(args.directory, args.day)
    print(f"  # {pathlib.Path(args.directory).name}, day {args.day}: {clients} clients, "
          f"{requests:,.0f} requests, mean {requests / DAY_S:.1f}/s; "
          f"peak {max(factors):.3f}x, trough {min(factors):.3f}x the mean")
    steps = [f"{{until_s: {(j + 1) * servegen.WINDOW_S}, factor: {f:.4f}}}"
             for j, f in enumerate(factors)]
    lines = [", ".join(steps[i:i + args.per_line]) for i in range(0, len(steps), args.per_line)]
    print("  load_schedule: [\n    " + ",\n    ".join(lines) + "]")

if __name__ == "__main__":
    main()
