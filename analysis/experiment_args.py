"""The command line every experiment script in scripts/ shares: the kvroute binary, the directory
its runs go to, optionally the number of paired seeds, and --reuse to read earlier runs from
that directory instead of running them again."""
import argparse
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def experiment_args(doc, out, seeds=None):
    """Parses sys.argv for a script whose docstring is `doc`; `out` is the default directory and
    `seeds`, when given, the default of --seeds. Returns (args, the directory, created)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("binary", nargs="?", default=str(ROOT / "build/release/kvroute"))
    parser.add_argument("--out", default=out, help="runs and their records go here")
    if seeds is not None:
        parser.add_argument("--seeds", type=int, default=seeds, help="paired seeds")
    parser.add_argument("--reuse", action="store_true",
                        help="read the runs already in --out instead of running them again")
    args = parser.parse_args()
    directory = pathlib.Path(args.out)
    directory.mkdir(parents=True, exist_ok=True)
    return args, directory
