#!/usr/bin/env python3
"""Hand-made cases for analysis/paper_stats.py: the statistics and the verdict rule of
docs/REPRODUCING.md (issue 13)."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "analysis"))
from paper_stats import (Seed, Stats, below_load_verdict, best_of, capacity_stats,  # noqa: E402
                         digits_near, paired_ratio, verdict, widest_bracket)


def stats(*values):
    return Stats(list(values))


class StatisticsTest(unittest.TestCase):
    def test_mean_and_student_t_interval(self):
        s = stats(1.0, 2.0, 3.0, 4.0, 5.0)  # sd sqrt(2.5), t(0.975, 4) = 2.776
        self.assertAlmostEqual(s.mean, 3.0)
        self.assertAlmostEqual(s.half_width, 2.776 * math.sqrt(2.5) / math.sqrt(5), places=6)

    def test_one_value_has_no_interval(self):
        self.assertTrue(math.isnan(stats(2.0).half_width))

    def test_censored_seeds_are_counted_not_averaged(self):
        caps = {1: Seed(100, 102), 2: Seed(110, 112), 3: Seed(220, math.inf, right=True),
                4: Seed(0, 30, left=True)}
        s = capacity_stats(caps)
        self.assertEqual(s.values, [100, 110])
        self.assertEqual(sorted(s.censored), ["< 30", "≥ 220"])
        self.assertIn("2/4 censored", s.text())

    def test_widest_bracket_is_relative_to_its_lower_end(self):
        rel, qps = widest_bracket({1: Seed(100, 101.25), 2: Seed(50, 52.5),
                                   3: Seed(220, math.inf, right=True)})
        self.assertAlmostEqual(rel, 0.05)
        self.assertAlmostEqual(qps, 2.5)

    def test_ratio_is_paired_by_seed(self):
        # Seed 1 has the larger numerator and the larger denominator: paired, the
        # ratio is 2 at both seeds, with no spread.
        num = {1: Seed(200, 202), 2: Seed(100, 101)}
        den = {1: Seed(100, 101), 2: Seed(50, 51)}
        r = paired_ratio(num, den)
        self.assertEqual(r.values, [2.0, 2.0])
        self.assertAlmostEqual(r.half_width, 0.0)

    def test_a_capacity_interval_covers_the_brackets(self):
        # Every seed in the same bracket [100, 102): the CI is the bracket, not a point.
        same = capacity_stats({s: Seed(100, 102) for s in range(1, 6)})
        self.assertAlmostEqual(same.mean, 100)
        self.assertEqual(same.ci, (100, 102))
        # Spread brackets: the lower ends' lower t-bound, the upper ends' upper one.
        spread = capacity_stats({1: Seed(98, 100), 2: Seed(100, 102), 3: Seed(102, 104)})
        half = 4.303 * 2 / math.sqrt(3)  # sd 2 of three values, t(0.975, 2) = 4.303
        self.assertAlmostEqual(spread.ci[0], 100 - half, places=6)
        self.assertAlmostEqual(spread.ci[1], 102 + half, places=6)

    def test_a_ratio_interval_covers_each_seeds_bracket_ratio(self):
        # a in [200, 204), b in [100, 102) at both seeds: a/b in [200/102, 204/100).
        num = {1: Seed(200, 204), 2: Seed(200, 204)}
        den = {1: Seed(100, 102), 2: Seed(100, 102)}
        r = paired_ratio(num, den)
        self.assertEqual(r.values, [2.0, 2.0])
        self.assertAlmostEqual(r.ci[0], 200 / 102)
        self.assertAlmostEqual(r.ci[1], 204 / 100)
        # A ratio whose brackets straddle 1 cannot be judged to exclude it.
        tie = paired_ratio({1: Seed(101, 103), 2: Seed(101, 103)},
                           {1: Seed(100, 102), 2: Seed(100, 102)})
        self.assertGreater(tie.mean, 1)
        self.assertEqual(verdict(tie, 1.5), "not reproduced")

    def test_a_capacity_over_itself_is_exactly_one(self):
        caps = {1: Seed(100, 102), 2: Seed(110, 112)}
        self.assertEqual(paired_ratio(caps, caps).ci, (1.0, 1.0))

    def test_a_censored_pair_gives_a_bound(self):
        num = {1: Seed(220, math.inf, right=True), 2: Seed(100, 101), 3: Seed(90, 91)}
        den = {1: Seed(100, 101), 2: Seed(50, 51), 3: Seed(0, 30, left=True)}
        r = paired_ratio(num, den)
        self.assertEqual(r.values, [2.0])
        self.assertEqual(sorted(r.censored), ["> 3.00", "≥ 2.20"])

    def test_best_baseline_per_seed(self):
        a = {1: Seed(60, 61), 2: Seed(0, 30, left=True)}
        b = {1: Seed(80, 81), 2: Seed(40, 41)}
        best = best_of([a, b])
        self.assertEqual(best[1].lower, 80)
        self.assertEqual(best[2].lower, 40)
        c = {1: Seed(220, math.inf, right=True), 2: Seed(0, 30, left=True)}
        self.assertTrue(best_of([a, c])[1].right)
        self.assertTrue(best_of([a, c])[2].left)


class VerdictTest(unittest.TestCase):
    def test_reproduced_when_the_interval_meets_the_band_on_the_same_side(self):
        self.assertEqual(verdict(stats(3.0, 3.2, 3.1), 4.2), "reproduced")  # 4.2 / 1.5 = 2.8

    def test_direction_only_when_above_one_but_short_of_the_band(self):
        self.assertEqual(verdict(stats(1.7, 1.8, 1.75), 4.2), "direction only")

    def test_not_reproduced_when_the_interval_holds_one(self):
        self.assertEqual(verdict(stats(0.9, 1.3, 1.1), 4.2), "not reproduced")

    def test_not_reproduced_on_the_other_side(self):
        self.assertEqual(verdict(stats(0.8, 0.85, 0.82), 2.3), "not reproduced")

    def test_below_one(self):
        self.assertEqual(verdict(stats(0.6, 0.65, 0.7), 0.5, 0.67), "reproduced")
        self.assertEqual(verdict(stats(0.95, 0.96, 0.97), 0.5), "direction only")  # band to 0.75

    def test_a_range_widens_the_band(self):
        # 2–6×: the band is [1.33, 9]; 1.4–1.5 meets it, with a single 2× it would not.
        self.assertEqual(verdict(stats(1.4, 1.5, 1.45), 2, 6), "reproduced")
        self.assertEqual(verdict(stats(1.4, 1.5, 1.45), 2.5), "direction only")

    def test_a_published_tie(self):
        self.assertEqual(verdict(stats(0.95, 1.05, 1.0), 1.0), "reproduced")
        self.assertEqual(verdict(stats(0.2, 1.9, 1.0), 1.0), "not reproduced")  # too wide
        self.assertEqual(verdict(stats(1.2, 1.3, 1.25), 1.0), "not reproduced")  # excludes 1

    def test_a_share_or_a_difference_is_judged_against_zero(self):
        # 0 means "no effect": a CI above 0 has the published direction.
        self.assertEqual(verdict(stats(90.0, 95.0, 100.0), 94.5, null=0), "reproduced")
        self.assertEqual(verdict(stats(0.5, 0.6, 0.7), 3.0, null=0), "direction only")  # band 2-4.5
        self.assertEqual(verdict(stats(-0.5, 0.5, 0.1), 3.0, null=0), "not reproduced")  # holds 0
        self.assertEqual(verdict(stats(-3.0, -2.5, -2.8), 3.0, null=0), "not reproduced")
        # Against 1, the same values would be read as a ratio below 1.
        self.assertEqual(verdict(stats(0.5, 0.6, 0.7), 3.0), "not reproduced")

    def test_too_few_uncensored_seeds(self):
        self.assertEqual(verdict(stats(3.0), 4.2), "not reproduced")
        self.assertEqual(verdict(Stats([], ["≥ 2.20"] * 5), 4.2), "not reproduced")

    def test_no_capacity_needs_every_seed_below_the_first_load(self):
        failed_first = {s: Seed(0, 30, left=True) for s in range(1, 6)}
        self.assertEqual(below_load_verdict(failed_first, 30), (5, "reproduced"))
        # A bracketed capacity below the load counts; one seed at or above it does not.
        mixed = {**failed_first, 2: Seed(24, 25)}
        self.assertEqual(below_load_verdict(mixed, 30), (5, "reproduced"))
        mixed[3] = Seed(30, 31)
        self.assertEqual(below_load_verdict(mixed, 30), (4, "not reproduced"))
        # Failing only a first load above the paper's says nothing below it.
        self.assertEqual(below_load_verdict({1: Seed(0, 40, left=True)}, 30),
                         (0, "not reproduced"))
        self.assertEqual(below_load_verdict({}, 30), (0, "not reproduced"))


class DigitsTest(unittest.TestCase):
    def test_a_bound_that_would_print_as_the_null_gets_a_digit(self):
        s = stats(0.97, 0.98, 0.985)  # upper bound just below 1: would print 1.00
        self.assertLess(s.ci[1], 1.0)
        self.assertEqual(f"{s.ci[1]:.2f}", "1.00")
        self.assertEqual(digits_near(s), 3)
        self.assertEqual(digits_near(stats(0.90, 0.91, 0.92)), 2)
        self.assertEqual(digits_near(stats(1.0, 1.0, 1.0)), 2)  # exactly the null
        self.assertEqual(digits_near(stats(0.02, 0.01, 0.03), null=0, digits=1), 2)
        self.assertEqual(digits_near(stats(5.0)), 2)  # no interval


if __name__ == "__main__":
    unittest.main()
