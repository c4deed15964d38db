#!/usr/bin/env python3
"""Exits 0 if two kvroute results files hold the same results: every dataset
equal (in every group), and every attribute equal, except the provenance that
says when, where and how a file was written: /provenance's created_utc,
working_directory and command_line. NaN equals NaN.

Usage: same_results.py A.h5 B.h5
"""
import sys

import h5py
import numpy as np

IGNORED = {"/provenance/created_utc", "/provenance/working_directory",
           "/provenance/command_line"}


def same_array(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.names:
        return all(same_array(a[n], b[n]) for n in a.dtype.names)
    if np.issubdtype(a.dtype, np.floating):
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


def compare(a, b, path, problems):
    for key in sorted((set(a.attrs.keys()) | set(b.attrs.keys()))):
        name = path.rstrip("/") + "/" + key
        if name not in IGNORED and a.attrs.get(key) != b.attrs.get(key):
            problems.append("attribute %s differs" % name)
    if set(a.keys()) != set(b.keys()):
        problems.append("%s holds %s vs %s" % (path, sorted(a.keys()), sorted(b.keys())))
    for key in sorted(set(a.keys()) & set(b.keys())):
        name = path.rstrip("/") + "/" + key
        if name in IGNORED:
            continue
        if isinstance(a[key], h5py.Group) and isinstance(b[key], h5py.Group):
            compare(a[key], b[key], name, problems)
        elif isinstance(a[key], h5py.Group) or isinstance(b[key], h5py.Group):
            problems.append("%s is a group in one file only" % name)
        elif not same_array(np.asarray(a[key][()]), np.asarray(b[key][()])):
            problems.append("%s differs" % name)


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    problems = []
    with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
        compare(a, b, "/", problems)
    for p in problems:
        print("%s vs %s: %s" % (a_path, b_path, p), file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
