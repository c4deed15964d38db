#!/usr/bin/env python3
"""Hand-made cases for scripts/canary_convergence.py: B's share per half hour and over the last
hour, from a point's deployment series."""
import json
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
sys.path.insert(0, str(ROOT / "scripts"))
import canary_convergence as cc  # noqa: E402


class SharesTest(unittest.TestCase):
    def test_shares_per_half_hour_and_last_hour_from_the_deployment_series(self):
        rows = [
            {"start_s": 0, "deployment_name": "A", "requests": 30},
            {"start_s": 0, "deployment_name": "B", "requests": 10},
            {"start_s": 1790, "deployment_name": "B", "requests": 60},   # still the first half hour
            {"start_s": 1800, "deployment_name": "A", "requests": 1},
            {"start_s": 1800, "deployment_name": "B", "requests": 9},
            {"start_s": cc.DURATION_S - 3600, "deployment_name": "A", "requests": 1},
            {"start_s": cc.DURATION_S - 10, "deployment_name": "B", "requests": 3},
            {"start_s": cc.DURATION_S, "deployment_name": "B", "requests": 99},  # the drain
        ]
        with tempfile.TemporaryDirectory() as d:
            (pathlib.Path(d) / "seed7.json").write_text(json.dumps({"deployment_series": rows}))
            shares = cc.shares(None, pathlib.Path(d), 7, reuse=True)
        self.assertAlmostEqual(shares[0], 100 * 70 / 100)
        self.assertAlmostEqual(shares[1], 90.0)
        self.assertAlmostEqual(shares["last"], 75.0)
        self.assertNotIn(cc.DURATION_S // cc.BUCKET_S, shares)  # nothing after the arrivals


if __name__ == "__main__":
    unittest.main()
