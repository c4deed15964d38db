#!/usr/bin/env python3
"""scripts/servegen_clients.py on a hand-made ServeGen directory: which clients it keeps, in
which order, and the clients file it writes (the format models/clients_file.h reads)."""
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "servegen_clients.py"


def run(directory, *args):
    return subprocess.run([sys.executable, str(SCRIPT), str(directory)] + list(args),
                          capture_output=True, text=True)


class ServegenClientsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        # Three clients, four windows. Over [600, 1800): clients 2 and 5 send 1800 requests each
        # (a tie, broken by the lower number), client 9 120: the top 2 send 3600 of 3720.
        rows = {
            2: ["0,9,1,Gamma,1,1", "600,3,1.5,Gamma,0.44444,0.75", "1200,0,0,,0,0",
                "1800,1,1,Gamma,1,1"],
            5: ["0,1,1,Gamma,1,1", "600,1,2,Weibull,0.5432109,2", "1200,2,1,Gamma,1,0.5",
                "1800,0,0,,0,0"],
            9: ["0,1,1,Gamma,1,1", "600,0.1,1,Gamma,1,10", "1200,0.1,1,Gamma,1,10",
                "1800,1,1,Gamma,1,1"],
        }
        for client, lines in rows.items():
            (self.dir / f"chunk-{client}-trace.csv").write_text("\n".join(lines) + "\n")
        self.out = self.dir / "clients.csv"

    def tearDown(self):
        self.tmp.cleanup()

    def test_keeps_the_busiest_clients_of_the_span_hottest_first(self):
        r = run(self.dir, "--start-s", "600", "--hours", str(1200 / 3600), "--top", "2",
                "--out", str(self.out))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = self.out.read_text().splitlines()
        self.assertTrue(lines[0].startswith("# ServeGen per-client windows"))
        self.assertIn("[600, 1800) s, top 2 clients by requests (96.8% of all)", lines[0])
        self.assertEqual(lines[1], "client,window_start_s,rate,cv,pattern,shape,scale")
        self.assertEqual(lines[2:], [
            "2,600,3,1.5,Gamma,0.4444,0.75",
            "2,1200,0,0,,0,0",
            "5,600,1,2,Weibull,0.5432,2",
            "5,1200,2,1,Gamma,1,0.5",
        ])

    def test_refuses_a_span_off_the_window_grid(self):
        r = run(self.dir, "--start-s", "300", "--hours", "1", "--out", str(self.out))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("whole 600 s windows", r.stderr)
        self.assertFalse(self.out.exists())

    def test_refuses_a_span_beyond_the_data(self):
        r = run(self.dir, "--start-s", "1200", "--hours", "1", "--out", str(self.out))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("do not cover [1200, 4800) s", r.stderr)
        self.assertFalse(self.out.exists())


if __name__ == "__main__":
    os.chdir(ROOT)
    unittest.main()
