#!/usr/bin/env python3
"""Hand-made cases for analysis/residency_model.py: Che's characteristic time and the per-replica
comparison of docs/REPRODUCING.md's residency experiment (seed 003 §5.5)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "analysis"))
from residency_model import (characteristic_time, compare_replicas, quantile,  # noqa: E402
                             revisit_gaps)


class CharacteristicTimeTest(unittest.TestCase):
    def test_one_item_fills_half_the_cache_at_ln2_over_its_rate(self):
        # 10 * (1 - exp(-T)) = 5  =>  T = ln 2.
        self.assertAlmostEqual(characteristic_time([(1.0, 10)], 0, 5), math.log(2), places=9)

    def test_blocks_used_once_stay_capacity_over_their_rate(self):
        self.assertAlmostEqual(characteristic_time([], 2.0, 10), 5.0, places=9)

    def test_both_kinds_share_the_cache(self):
        t = characteristic_time([(0.5, 4), (2.0, 4)], 1.0, 9)
        occupancy = 4 * (1 - math.exp(-0.5 * t)) + 4 * (1 - math.exp(-2.0 * t)) + t
        self.assertAlmostEqual(occupancy, 9, places=9)

    def test_everything_fits_forever(self):
        self.assertEqual(characteristic_time([(1.0, 3), (2.0, 3)], 0, 6), math.inf)


def row(arrival, key, replica, prompt=1000, output=0, cached=0, admitted=1):
    return {"arrival_s": str(arrival), "key": str(key), "replica": str(replica),
            "prompt_tokens": str(prompt), "output_tokens": str(output),
            "cached_tokens": str(cached), "admitted": str(admitted)}


class CompareReplicasTest(unittest.TestCase):
    def test_by_value(self):
        # Replica 0, window 10-20 s: key 7 three times, key 8 once; each prompt 1,000 tokens
        # of which the 160-token system prompt is 10 blocks of 16; outputs 0 (no own blocks
        # beyond the prompt's 62 - 10 = 52 each). Outside the window, unadmitted, and unrouted
        # rows are left out.
        rows = [row(12, 7, 0, cached=0), row(14, 7, 0, cached=160), row(16, 7, 0, cached=160),
                row(18, 8, 0, cached=0), row(5, 7, 0, cached=160), row(25, 7, 0),
                row(15, 7, 0, admitted=0), {**row(15, 7, 0), "replica": ""}]
        out = compare_replicas(rows, (10, 20), shared_tokens=160, block_tokens=16,
                               capacity_blocks=100)
        self.assertEqual(list(out), [0])
        r = out[0]
        self.assertEqual(r.requests, 4)
        self.assertEqual(r.keys, 2)
        self.assertAlmostEqual(r.simulated, 320 / 4000)
        # Key rates 0.3 and 0.1 per s; 4 requests of 52 own blocks over 10 s.
        t = characteristic_time([(0.3, 10), (0.1, 10)], 4 * 52 / 10, 100)
        self.assertAlmostEqual(r.characteristic_s, t)
        # Key 7's requests find it at the rate of its 2 others; key 8's single request never.
        expected = 3 * 160 * (1 - math.exp(-0.2 * t)) / 4000
        self.assertAlmostEqual(r.predicted, expected)
        from_empty = sum(160 * (1 - math.exp(-0.2 * min(t, a))) for a in (12, 14, 16)) / 4000
        self.assertAlmostEqual(r.predicted_from_empty, from_empty)

    def test_cached_outputs_take_room(self):
        rows = [row(1, 1, 0, prompt=320, output=320), row(2, 1, 0, prompt=320, output=320)]
        with_outputs = compare_replicas(rows, (0, 10), 160, 16, 30)[0]
        without = compare_replicas(rows, (0, 10), 160, 16, 30, cache_outputs=False)[0]
        self.assertLess(with_outputs.characteristic_s, without.characteristic_s)


class RevisitGapsTest(unittest.TestCase):
    def test_gaps_between_a_keys_consecutive_arrivals(self):
        rows = [row(5, 1, 0), row(1, 1, 0), row(2, 2, 0), row(9.5, 2, 0), row(7, 1, 0)]
        self.assertEqual(sorted(revisit_gaps(rows)), [2.0, 4.0, 7.5])

    def test_the_comparison_keeps_each_replicas_gaps(self):
        rows = [row(11, 7, 0), row(13, 7, 0), row(12, 7, 1), row(19, 7, 1)]
        out = compare_replicas(rows, (10, 20), 160, 16, 100)
        self.assertEqual(out[0].revisit_gaps, [2.0])
        self.assertEqual(out[1].revisit_gaps, [7.0])


class QuantileTest(unittest.TestCase):
    def test_linear_between_order_statistics(self):
        self.assertEqual(quantile([3, 1, 2, 4], 0.5), 2.5)
        self.assertAlmostEqual(quantile(list(range(11)), 0.9), 9.0)
        self.assertTrue(math.isnan(quantile([], 0.5)))


if __name__ == "__main__":
    unittest.main()
