#!/usr/bin/env python3
"""How fast kvroute simulates, measured on whole processes (issue 17's targets).

    python3 bench/speed.py [--kvroute build/release/kvroute] [--repeat 3] [PART ...]

PARTs (all but `scale` and `reproduce` by default):
  peer       every policy on the reference workload (../shared/bench/peer_workload.yaml), 8
             replicas at 100 QPS and 30 replicas at 375 QPS (~100k requests each): simulated
             requests per CPU-second, events per request, peak RSS
  flagship   the 70B paper flagship (scenarios/paper/flagship.yaml), each of its policies at
             100 QPS, far past its capacity (queues of tens of thousands)
  memory     peak RSS of one point at 1x, 4x and 16x the requests: flat when nothing is kept per
             finished request
  scale      one point of 1,000 replicas, 1M keys and 10M requests: wall time and peak RSS
             (minutes; under 1 GB with least_loaded)
  reproduce  scripts/reproduce.sh, all of it: wall time and the largest peak RSS of its runs
             (tens of minutes on two cores)

Each point runs alone, one thread, as its own process; CPU seconds are the process's user + system
time, the least of --repeat runs (other work on the machine only ever adds to them). Prints
Markdown tables. Nothing is timed inside the simulator and no test depends on these numbers.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "..", "shared", "bench", "peer_workload.yaml")
FLAGSHIP = os.path.join(ROOT, "scenarios", "paper", "flagship.yaml")
THIRTY = ["--set", "cluster.deployments=[{name: main, replicas: 30}]", "--set", "duration_s=266.667"]


def measure(argv, repeat):
    """Runs a point `repeat` times; returns its JSON and the least CPU, wall and RSS."""
    best = None
    for _ in range(repeat):
        # Output to files, not pipes: the child never blocks on a full pipe, and
        # wait4 gives this one child's resource use.
        with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
            start = time.monotonic()
            process = subprocess.Popen(argv, cwd=ROOT, stdout=out_file, stderr=err_file)
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.monotonic() - start
            out_file.seek(0)
            err_file.seek(0)
            out, err = out_file.read(), err_file.read()
        if status != 0:
            sys.exit("failed: %s\n%s" % (" ".join(argv), err.decode()))
        cpu = usage.ru_utime + usage.ru_stime
        sample = (cpu, wall, usage.ru_maxrss / 1024.0, json.loads(out))
        if best is None or cpu < best[0]:
            best = sample
    return best


def peer_scenario(directory):
    """The reference workload, its old `cluster.scheduler` key renamed `cluster.engine`."""
    with open(PEER) as f:
        text = f.read()
    text = re.sub(r"^(\s*)scheduler:", r"\1engine:", text, flags=re.M)
    path = os.path.join(directory, "peer_workload.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def scenario_policies(path):
    """The policy names of a scenario's `policies:` list (one entry per line)."""
    names, inside = [], False
    with open(path) as f:
        for line in f:
            if re.match(r"^policies:", line):
                inside = True
            elif inside and re.match(r"^\s+- ", line):
                names.append(re.match(r"^\s+- \{?(?:name: )?([a-z_0-9]+)", line).group(1))
            elif inside and not line.startswith(" "):
                break
    return names


def policies(kvroute):
    out = subprocess.run([kvroute, "policies"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]


def variants(kvroute):
    """(label, --policy, extra arguments): every policy, and llm-d with the engines' caches."""
    for name in policies(kvroute):
        yield name, name, []
        if name == "llmd":
            yield "llmd (precise)", "llmd", ["--set", "policies=[{name: llmd, prefix_cache: precise}]"]


def row(label, point):
    cpu, wall, rss, result = point
    requests = result["offered"]
    return "| %s | %d | %.2f | %s | %.1f | %.0f |" % (
        label, requests, cpu, format(int(requests / cpu), ","), result["events"] / requests, rss)


HEADER = ("| policy | requests | CPU s | requests / CPU s | events / request | peak RSS MiB |\n"
          "|---|---:|---:|---:|---:|---:|")


def part_peer(args, directory):
    scenario = peer_scenario(directory)
    for replicas, load in ((8, ["--qps", "100"]), (30, ["--qps", "375"] + THIRTY)):
        print("\nReference workload, %d replicas:\n\n%s" % (replicas, HEADER))
        for label, policy, extra in variants(args.kvroute):
            argv = [args.kvroute, "point", scenario, "--policy", policy, "--json"] + load + extra
            print(row(label, measure(argv, args.repeat)), flush=True)


def part_flagship(args, directory):
    print("\n70B paper flagship (30 replicas of Llama-3.3-70B fp8 on 2 H100), 100 QPS:\n\n" + HEADER)
    for name in scenario_policies(FLAGSHIP):
        argv = [args.kvroute, "point", FLAGSHIP, "--policy", name, "--qps", "100", "--json"]
        print(row(name, measure(argv, args.repeat)), flush=True)


def part_memory(args, directory):
    scenario = peer_scenario(directory)
    print("\nPeak memory against finished requests (reference workload, 8 replicas, least_loaded):"
          "\n\n| simulated s | requests | peak RSS MiB |\n|---:|---:|---:|")
    for duration in (1000, 4000, 16000):
        argv = [args.kvroute, "point", scenario, "--policy", "least_loaded", "--qps", "100",
                "--set", "duration_s=%d" % duration, "--json"]
        cpu, wall, rss, result = measure(argv, 1)
        print("| %d | %s | %.0f |" % (duration, format(result["offered"], ","), rss), flush=True)


def part_scale(args, directory):
    scenario = peer_scenario(directory)
    print("\n1,000 replicas, 1M keys, 10M requests (the reference workload's shape, 12,500 QPS for"
          " 800 s):\n\n| policy | requests | wall s | CPU s | requests / CPU s | peak RSS MiB |"
          "\n|---|---:|---:|---:|---:|---:|")
    for policy in args.scale_policies.split(","):
        argv = [args.kvroute, "point", scenario, "--policy", policy, "--qps", "12500",
                "--set", "cluster.deployments=[{name: main, replicas: 1000}]",
                "--set", "workload.keys=1000000", "--set", "duration_s=800", "--json",
                "--ignore-limits"]
        cpu, wall, rss, result = measure(argv, 1)
        print("| %s | %s | %.0f | %.0f | %s | %.0f |" % (
            policy, format(result["offered"], ","), wall, cpu,
            format(int(result["offered"] / cpu), ","), rss), flush=True)


def part_reproduce(args, directory):
    out = os.path.join(directory, "reproduce")
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([os.path.join(ROOT, "scripts", "reproduce.sh"), out], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print("\nscripts/reproduce.sh on %d cores: wall %.0f s, CPU %.0f s, largest peak RSS of a run"
          " %.0f MiB" % (os.cpu_count(), wall, cpu, after.ru_maxrss / 1024.0))
    with open(os.path.join(out, "timings.txt")) as f:
        print("\n```\n" + f.read() + "```")


PARTS = {"peer": part_peer, "flagship": part_flagship, "memory": part_memory,
         "scale": part_scale, "reproduce": part_reproduce}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", metavar="PART",
                        help="one of %s (default: peer flagship memory)" % ", ".join(PARTS))
    parser.add_argument("--kvroute", default=os.path.join(ROOT, "build", "release", "kvroute"))
    parser.add_argument("--repeat", type=int, default=3, help="runs per point; the least CPU counts")
    parser.add_argument("--scale-policies", default="least_loaded",
                        help="policies of the scale point, comma-separated")
    args = parser.parse_args()
    for part in args.parts:
        if part not in PARTS:
            parser.error("no part %r: one of %s" % (part, ", ".join(PARTS)))
    args.parts = args.parts or ["peer", "flagship", "memory"]
    args.kvroute = os.path.abspath(args.kvroute)
    if not os.access(args.kvroute, os.X_OK):
        sys.exit("no %s: build it first (scripts/bootstrap.sh run)" % args.kvroute)
    with tempfile.TemporaryDirectory() as directory:
        for part in args.parts:
            PARTS[part](args, directory)


if __name__ == "__main__":
    main()
