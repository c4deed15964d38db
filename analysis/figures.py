"""The experiment scripts' figures are optional: matplotlib's pyplot for drawing into files, or
None, with a note in the script's output, where matplotlib is not installed."""


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only; no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(no matplotlib: no figure drawn)")
        return None
    return plt
