#!/usr/bin/env python3
"""Tests of scripts/update_reproducing.py: generated blocks filled from a results directory,
text outside them untouched, figures copied, and what the directory lacks reported."""
import pathlib
import sys
import tempfile
import unittest

import h5py
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import update_reproducing as u  # noqa: E402

DOC = """Prose before.

<!-- BEGIN reproduce file residency.md -->
old table
<!-- END reproduce file residency.md -->

Prose between.

<!-- BEGIN reproduce timings -->
<!-- END reproduce timings -->

<!-- BEGIN reproduce calibrations -->
<!-- END reproduce calibrations -->

<!-- BEGIN reproduce file affinity_map.md -->
kept, as the run made no map
<!-- END reproduce file affinity_map.md -->
"""


def results_file(path, policies):
    with h5py.File(path, "w") as f:
        g = f.create_group("provenance")
        text = "name: x\npolicies:\n" + "".join(f"  - {p}\n" for p in policies)
        g.create_dataset("resolved_scenario_yaml", data=np.bytes_(text))


class UpdateTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.dir.name)
        self.out, self.figures = root / "out", root / "figures"
        self.out.mkdir()
        self.figures.mkdir()
        self.doc = root / "DOC.md"
        self.doc.write_text(DOC)
        (self.out / "residency.md").write_text("| a | b |\n|---|---|\n| 1 | 2 |\n")
        (self.out / "timings.txt").write_text("flagship wall 6.6 s\n")
        results_file(self.out / "drift.h5",
                     ["{name: cacheroute, label: static, q_cap: 4.1875, slots_per_replica: 47}",
                      "{name: cacheroute, label: stale, q_cap: 4.1875, slots_per_replica: 47}"])
        results_file(self.out / "qcap.h5",
                     ["flat_lb", "{name: cacheroute, q_cap: 50, slots_per_replica: 34}",
                      "{name: cacheroute, q_cap: 14.75, slots_per_replica: 34}"])
        (self.out / "plots").mkdir()
        (self.out / "plots" / "regimes.png").write_bytes(b"png")

    def tearDown(self):
        self.dir.cleanup()

    def test_blocks_are_filled_and_the_prose_is_kept(self):
        changed, missing = u.update(self.out, [self.doc], self.figures, check=False)
        text = self.doc.read_text()
        self.assertIn("Prose before.", text)
        self.assertIn("Prose between.", text)
        self.assertNotIn("old table", text)
        self.assertIn("| 1 | 2 |", text)
        self.assertIn("```\nflagship wall 6.6 s\n```", text)
        self.assertIn("| `drift` | 4.1875 | 47 |", text)
        self.assertIn("| `qcap` | 14.75, 50 | 34 |", text)  # sorted by value
        self.assertIn("kept, as the run made no map", text)
        self.assertIn("file affinity_map.md", missing)
        self.assertIn(self.doc, changed)
        self.assertEqual((self.figures / "regimes.png").read_bytes(), b"png")
        self.assertIn("affinity_map/affinity_map.png", missing)

    def test_a_sections_title_becomes_its_caption(self):
        self.assertEqual(u.captioned("### Drift, at 120 QPS\n\n| a |\n### not a title\n"),
                         "**Drift, at 120 QPS.**\n\n| a |\n### not a title\n")

    def test_check_changes_nothing_and_a_second_update_nothing_more(self):
        changed, _ = u.update(self.out, [self.doc], self.figures, check=True)
        self.assertEqual(self.doc.read_text(), DOC)
        self.assertFalse((self.figures / "regimes.png").exists())
        self.assertIn(self.doc, changed)
        u.update(self.out, [self.doc], self.figures, check=False)
        changed, _ = u.update(self.out, [self.doc], self.figures, check=True)
        self.assertEqual(changed, [])


if __name__ == "__main__":
    unittest.main()
