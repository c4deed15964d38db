"""Reads ServeGen's published per-client arrival windows (Xiang et al., "ServeGen: Workload
Characterization and Generation of Large Language Model Serving in Production", 2025;
github.com/alibaba/ServeGen, Apache-2.0).

A model's directory (e.g. data/language/m-large) holds one chunk-<client>-trace.csv per client,
one line per 600-second window and no header: the window's start (s), the client's mean rate
(requests/s), the inter-arrival CV, the fitted inter-arrival distribution (Gamma or Weibull, empty
when the client sent nothing) and its two parameters (shape, scale). ServeGen's own reader is
servegen/clientpool.py; this one keeps the same meaning and names the file and line of a bad row."""
import dataclasses
import pathlib
import re

WINDOW_S = 600  # ServeGen's window: every trace row is ten minutes
PATTERNS = ("Gamma", "Weibull")
_CHUNK = re.compile(r"chunk-(\d+)-trace\.csv$")


@dataclasses.dataclass(frozen=True)
class Window:
    start_s: int
    rate: float  # requests per second over the window
    cv: float  # coefficient of variation of the inter-arrival gaps
    pattern: str  # "Gamma", "Weibull", or "" for an idle window
    shape: float
    scale: float


def read_client(path):
    """The windows of one chunk-<client>-trace.csv, in time order."""
    windows = []
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.strip().split(",")
        if len(fields) != 6:
            raise ValueError(f"{path}:{number}: expected 6 fields, found {len(fields)}")
        try:
            start, rate, cv = int(fields[0]), float(fields[1]), float(fields[2])
            shape, scale = float(fields[4]), float(fields[5])
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
        pattern = fields[3]
        if pattern not in PATTERNS + ("",):
            raise ValueError(f"{path}:{number}: unknown pattern '{pattern}' (Gamma, Weibull)")
        if rate < 0 or cv < 0 or (pattern and (shape <= 0 or scale <= 0)):
            raise ValueError(f"{path}:{number}: rate, cv, shape and scale must be positive")
        if pattern == "" and rate > 0:
            raise ValueError(f"{path}:{number}: a window with requests needs a pattern")
        if windows and start != windows[-1].start_s + WINDOW_S:
            raise ValueError(f"{path}:{number}: window starts at {start} s, expected "
                             f"{windows[-1].start_s + WINDOW_S}")
        windows.append(Window(start, rate, cv, pattern, shape, scale))
    return windows


def read_model(directory):
    """{client id: windows} for every chunk-<client>-trace.csv in `directory`."""
    clients = {}
    for path in sorted(pathlib.Path(directory).iterdir()):
        match = _CHUNK.search(path.name)
        if match:
            clients[int(match.group(1))] = read_client(path)
    if not clients:
        raise ValueError(f"{directory}: no chunk-<client>-trace.csv files")
    return clients


def requests_per_window(clients, start_s, end_s):
    """The expected requests of all clients together in each window of [start_s, end_s)."""
    totals = [0.0] * ((end_s - start_s) // WINDOW_S)
    for windows in clients.values():
        for w in windows:
            if start_s <= w.start_s < end_s:
                totals[(w.start_s - start_s) // WINDOW_S] += w.rate * WINDOW_S
    return totals
