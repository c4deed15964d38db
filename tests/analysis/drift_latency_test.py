#!/usr/bin/env python3
"""Hand-made cases for scripts/drift_latency.py: per-interval p99 TTFT and hit rate from
per-request records, and the worst shift between a stale and a fresh plan."""
import math
import pathlib
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
sys.path.insert(0, str(ROOT / "scripts"))
import drift_latency as dl  # noqa: E402


def request(arrival, ttft, prompt=100, cached=50):
    return {"arrival_s": str(arrival), "ttft_s": "" if ttft is None else str(ttft),
            "prompt_tokens": str(prompt), "cached_tokens": str(cached)}


class IntervalsTest(unittest.TestCase):
    def test_requests_are_grouped_by_arrival_after_the_warm_up(self):
        rows = [request(10, 9.0)]  # the warm-up: left out
        rows += [request(60 + i * 0.5, 0.1 * (i + 1), cached=100 if i < 50 else 0)
                 for i in range(100)]  # 60-110 s
        rows += [request(130, None)]  # 120-180 s: never got a first token
        got = dl.intervals(rows)
        self.assertEqual(sorted(got), [60, 120])
        p99, hit = got[60]
        self.assertAlmostEqual(hit, 0.5)
        self.assertGreater(p99, 9.8)
        self.assertLessEqual(p99, 10.0)
        self.assertTrue(math.isinf(got[120][0]))


class WorstShiftTest(unittest.TestCase):
    def test_the_interval_where_stale_is_slowest_against_fresh(self):
        stale = {60: (1.0, 0.90), 120: (1.5, 0.80), 180: (0.9, 0.91)}
        fresh = {60: (1.1, 0.90), 120: (1.0, 0.85), 180: (1.0, 0.90)}
        worst, p99, hit, mean = dl.worst_shift(stale, fresh)
        self.assertEqual(worst, 120)
        self.assertAlmostEqual(p99, 500)
        self.assertAlmostEqual(hit, 5.0)
        self.assertAlmostEqual(mean, (-100 + 500 - 100) / 3)

    def test_both_unbounded_is_no_difference(self):
        stale = {60: (math.inf, 0.5), 120: (1.2, 0.5)}
        fresh = {60: (math.inf, 0.5), 120: (1.0, 0.5)}
        worst, p99, _, mean = dl.worst_shift(stale, fresh)
        self.assertEqual(worst, 120)
        self.assertAlmostEqual(p99, 200)
        self.assertAlmostEqual(mean, 100)


if __name__ == "__main__":
    unittest.main()
