#!/usr/bin/env python3
"""Hand-made cases for scripts/diurnal_shape.py and analysis/servegen.py: the load shape of
scenarios/diurnal.yaml from ServeGen's per-client windows, and the reader's errors."""
import os
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "analysis"))
sys.path.insert(0, str(ROOT / "scripts"))
import diurnal_shape  # noqa: E402
import servegen  # noqa: E402

DAY_WINDOWS = 86400 // servegen.WINDOW_S


def write_client(directory, client, rates, pattern="Gamma"):
    """A chunk-<client>-trace.csv with one window per rate, from time 0."""
    lines = []
    for w, rate in enumerate(rates):
        fitted = f"{pattern},0.5,2.0" if rate > 0 else ",0,0"
        lines.append(f"{w * servegen.WINDOW_S},{rate},1.4,{fitted}")
    (pathlib.Path(directory) / f"chunk-{client}-trace.csv").write_text("\n".join(lines) + "\n")


class ShapeTest(unittest.TestCase):
    def test_factors_are_the_clients_requests_per_window_over_the_days_mean(self):
        with tempfile.TemporaryDirectory() as d:
            # Client 1 sends 1/s all day; client 2 sends 3/s in the first window only.
            write_client(d, 1, [1.0] * DAY_WINDOWS)
            write_client(d, 2, [3.0] + [0.0] * (DAY_WINDOWS - 1))
            factors, clients, requests = diurnal_shape.shape(d, 0)
        self.assertEqual(clients, 2)
        self.assertEqual(len(factors), DAY_WINDOWS)
        self.assertAlmostEqual(requests, 86400 * 1.0 + 600 * 3.0)
        mean = requests / DAY_WINDOWS
        self.assertAlmostEqual(factors[0], 600 * 4.0 / mean)
        self.assertAlmostEqual(factors[1], 600 * 1.0 / mean)
        self.assertAlmostEqual(sum(factors) / len(factors), 1.0)

    def test_a_later_day_is_read_from_its_own_windows(self):
        with tempfile.TemporaryDirectory() as d:
            write_client(d, 7, [1.0] * DAY_WINDOWS + [2.0] + [1.0] * (DAY_WINDOWS - 1))
            factors, _, requests = diurnal_shape.shape(d, 1)
        self.assertAlmostEqual(requests, 86400 + 600)
        self.assertGreater(factors[0], factors[1])

    def test_a_day_without_requests_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            write_client(d, 1, [0.0] * DAY_WINDOWS)
            with self.assertRaisesRegex(ValueError, "no requests on day 0"):
                diurnal_shape.shape(d, 0)


class ReaderTest(unittest.TestCase):
    def test_bad_rows_name_the_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "chunk-3-trace.csv")
            for text, message in [
                ("0,1.0,1.2,Gamma,0.5,2.0\n600,1.0,1.2,Lognormal,1,1\n", ":2: unknown pattern"),
                ("0,1.0,1.2,Gamma,0.5\n", ":1: expected 6 fields"),
                ("0,1.0,1.2,Gamma,0.5,2.0\n1200,1.0,1.2,Gamma,0.5,2.0\n", ":2: window starts at"),
                ("0,1.0,1.2,,0,0\n", ":1: a window with requests needs a pattern"),
                ("0,-1,1.2,Gamma,0.5,2.0\n", ":1: rate, cv, shape and scale"),
                ("0,x,1.2,Gamma,0.5,2.0\n", ":1: could not convert"),
            ]:
                pathlib.Path(path).write_text(text)
                with self.assertRaisesRegex(ValueError, "chunk-3-trace.csv" + message):
                    servegen.read_client(path)

    def test_a_directory_without_chunks_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(ValueError, "no chunk-<client>-trace.csv"):
                servegen.read_model(d)


if __name__ == "__main__":
    unittest.main()
