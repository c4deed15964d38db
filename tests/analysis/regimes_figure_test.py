#!/usr/bin/env python3
"""Hand-made cases for scripts/regimes_figure.py: the gain and ratio it reads from a run."""
import pathlib
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
sys.path.insert(0, str(ROOT / "scripts"))
import regimes_figure  # noqa: E402
from paper_stats import Seed, paired_ratio  # noqa: E402


class FakeRun:
    """A run with given hit rates (per seed, at 80 QPS) and capacities (seed -> Seed)."""

    def __init__(self, hits, capacities):
        self.hits, self.capacities = hits, capacities
        self.asked = []

    def reference_qps(self):
        return 80.0

    def point_values(self, policy, qps, column):
        self.asked.append((policy, qps, column))
        return self.hits[policy]

    def ratio(self, num, den, threshold):
        self.asked.append((num, den, threshold))
        return paired_ratio(self.capacities[num], self.capacities[den])


class PointTest(unittest.TestCase):
    def test_gain_is_cacheroutes_mean_hit_rate_minus_flat_lbs_at_the_reference_load(self):
        run = FakeRun({"flat_lb": [0.10, 0.12], "cacheroute": [0.50, 0.54]},
                      {"cacheroute": {1: Seed(200, 201), 2: Seed(210, 211)},
                       "flat_lb": {1: Seed(100, 101), 2: Seed(100, 101)}})
        gain, flat, cache, ratio = regimes_figure.point(run)
        self.assertAlmostEqual(flat, 11.0)
        self.assertAlmostEqual(cache, 52.0)
        self.assertAlmostEqual(gain, 41.0)
        self.assertAlmostEqual(ratio.mean, 2.05)  # paired per seed: 2.0 and 2.1
        self.assertIn(("flat_lb", 80.0, "token_hit_rate"), run.asked)
        self.assertIn(("cacheroute", "flat_lb", 3.5), run.asked)  # the paper's SLO


if __name__ == "__main__":
    unittest.main()
