#!/usr/bin/env python3
"""Exits 0 if two kvroute results files hold the same results: every dataset
equal, and every root attribute equal except created_utc and command_line,
which say when and how a file was written. NaN equals NaN.

Usage: same_results.py A.h5 B.h5
"""
import sys

import h5py
import numpy as np

IGNORED_ATTRIBUTES = {"created_utc", "command_line"}


def same_array(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.names:
        return all(same_array(a[n], b[n]) for n in a.dtype.names)
    if np.issubdtype(a.dtype, np.floating):
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    problems = []
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        if set(a.keys()) != set(b.keys()):
            problems.append("datasets differ: %s vs %s" % (sorted(a.keys()), sorted(b.keys())))
        for name in sorted(set(a.keys()) & set(b.keys())):
            if not same_array(a[name][()], b[name][()]):
                problems.append("/%s differs" % name)
        keys = (set(a.attrs.keys()) | set(b.attrs.keys())) - IGNORED_ATTRIBUTES
        for key in sorted(keys):
            if a.attrs.get(key) != b.attrs.get(key):
                problems.append("attribute %s differs" % key)
    for p in problems:
        print("%s vs %s: %s" % (a_path, b_path, p), file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
